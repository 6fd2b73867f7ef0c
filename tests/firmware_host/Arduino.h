// The few Arduino calls the Braccio sketch makes, for building it on the host (tests only):
// Serial reads the bytes the driver feeds and writes to stdout, millis() is the driver's clock,
// which delayMicroseconds() advances (so the soft start takes its time in setup()).
#pragma once
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HIGH 1
#define LOW 0
#define OUTPUT 1

class __FlashStringHelper;
#define F(s) (reinterpret_cast<const __FlashStringHelper *>(s))

unsigned long millis();
inline void pinMode(uint8_t, uint8_t) {}
inline void digitalWrite(uint8_t, uint8_t) {}
void delayMicroseconds(unsigned int us);
template <class A, class B> inline A max(A a, B b) { return a > (A)b ? a : (A)b; }
inline char *ltoa(long v, char *buf, int) { snprintf(buf, 12, "%ld", v); return buf; }

class HostSerial {
 public:
  void begin(unsigned long) {}
  int available();
  int read();
  void print(const char *s) { fputs(s, stdout); }
  void print(const __FlashStringHelper *s) { fputs(reinterpret_cast<const char *>(s), stdout); }
  void print(char c) { fputc(c, stdout); }
  void print(unsigned char v) { printf("%u", (unsigned)v); }
  void print(int v) { printf("%d", v); }
  void print(unsigned int v) { printf("%u", v); }
  void print(long v) { printf("%ld", v); }
  void print(unsigned long v) { printf("%lu", v); }
};
extern HostSerial Serial;
