// Runs the Braccio sketch on the host against a script on stdin, one step a line:
//   "<ms> <hex>"  set the clock to ms after setup() ended, receive the bytes written in hex (any
//                 values, newlines included), run loop() once
//   "<ms>"        set the clock to ms after setup() ended, run loop() once
// Everything the sketch prints goes to stdout; "setup <ms>" (the time setup() took: the soft start)
// goes to stderr. Build: g++ -I. -x c++ -include Arduino.h braccio_kinematica.ino driver.cpp
// (tests/test_hardware_firmware.py does this).
#include "Arduino.h"
#include <string>

void setup();
void loop();

static unsigned long long clock_us = 0;
static std::string input;
static size_t input_pos = 0;
HostSerial Serial;

unsigned long millis() { return (unsigned long)(clock_us / 1000); }
void delayMicroseconds(unsigned int us) { clock_us += us; }
int HostSerial::available() { return (int)(input.size() - input_pos); }
int HostSerial::read() { return input_pos < input.size() ? (unsigned char)input[input_pos++] : -1; }

static int hex(char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

int main() {
  setup();
  unsigned long booted = millis();
  fprintf(stderr, "setup %lu\n", booted);
  static char buf[1 << 16];
  while (fgets(buf, sizeof buf, stdin)) {
    char *rest;
    clock_us = (unsigned long long)(booted + strtoul(buf, &rest, 10)) * 1000;
    if (*rest == ' ') {
      input.clear();
      for (char *h = rest + 1; h[0] && h[0] != '\n' && h[1]; h += 2) input += (char)(hex(h[0]) * 16 + hex(h[1]));
      input_pos = 0;
    }
    loop();
  }
  return 0;
}
