// The Servo library's public calls (attach, write, read, detach), for building the sketch on the
// host (tests only): write() records the degrees; the servos have no other effect here.
#pragma once
#include <stdint.h>

class Servo {
 public:
  uint8_t attach(int pin) { pin_ = pin; return 0; }
  void detach() {}
  void write(int degrees) { degrees_ = degrees; }
  int read() { return degrees_; }
  bool attached() { return pin_ >= 0; }

 private:
  int pin_ = -1;
  int degrees_ = 90;
};
