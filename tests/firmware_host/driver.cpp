// Runs the Braccio sketch on the host against a script on stdin, one step a line:
//   "<ms> <text>"  set the clock to ms, receive the line <text>, run loop() once
//   "<ms>"         set the clock to ms, run loop() once
// Everything the sketch prints goes to stdout. Build: g++ -I. -x c++ -include Arduino.h
// braccio_kinematica.ino driver.cpp (tests/test_hardware_firmware.py does this).
#include "Arduino.h"
#include <string>

void setup();
void loop();

static unsigned long clock_ms = 0;
static std::string input;
static size_t input_pos = 0;
HostSerial Serial;

unsigned long millis() { return clock_ms; }
int HostSerial::available() { return (int)(input.size() - input_pos); }
int HostSerial::read() { return input_pos < input.size() ? (unsigned char)input[input_pos++] : -1; }

int main() {
  setup();
  char buf[256];
  while (fgets(buf, sizeof buf, stdin)) {
    char *rest;
    clock_ms = strtoul(buf, &rest, 10);
    if (*rest == ' ') {
      input.assign(rest + 1);  // the text and its newline
      input_pos = 0;
    }
    loop();
  }
  return 0;
}
