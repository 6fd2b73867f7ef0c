// Kinematica firmware for the Tinkerkit Braccio (Arduino Uno + Braccio shield), protocol v2.
//
// Written by `kinematica braccio firmware --out DIR`; upload it with the Arduino IDE or
// `arduino-cli compile --upload -b arduino:avr:uno -p PORT DIR/braccio_kinematica`. It needs only
// the Servo library that comes with the IDE (not the Braccio library).
//
// At power-up or reset it drives the servos home under the Braccio library's soft start (the
// servos' supply pulsed at low duty on pin 12 for 6 s, so they creep there), then sends its banner.
//
// Protocol (115200 baud, ASCII lines ended by \n; degrees are whole numbers, servos
// M1 base, M2 shoulder, M3 elbow, M4 wrist pitch, M5 wrist roll, M6 gripper). Any byte is safe:
// \r is dropped wherever it is; a line with a byte outside 0x20..0x7E or longer than MAX_LINE is
// answered E0 whatever it says.
//   P b,s,e,w,r,g,v          move, up to v deg/s (20..100, the library's ServoMovement range) for
//                            the joint that moves furthest, speeding up and slowing down at ACCEL
//                            deg/s^2, all finish together, the exact target written at the end -> OK
//   H [v]                    home (the safety position 90,45,180,180,90,10) -> OK
//   T seq,ms,b,s,e,w,r,g*CC  stream: queue a point reached ms after the previous one -> A seq*CC
//                            when it is reached; CC = CRC-8 (poly 0x07, init 0) in upper-case hex of
//                            the text before '*'; seq 0,1,2,... (0 starts a new stream when the queue
//                            is empty); no servo may step faster than SPEED_MAX (exact, no slack)
//   ?                        -> Q b,s,e,w,r,g: the last degrees written. Hobby servos report no
//                            position: this is the command, not a measurement
//   S                        stop now: drop the queue, hold where the arm is -> OK
//   V                        -> the READY banner again (with boot=0; setup() sends it with boot=1)
//   K                        keep-alive during a stream (no reply)
// Errors: E0 malformed line, E1 out of range, E2 bad checksum, E3 sequence out of order,
// E4 busy / queue full, E5 watchdog. Any error during a stream drops the queue and holds the arm;
// so does the watchdog when a streamed point is queued and no line came for WATCHDOG_MS.
//
// The same rules run in Python in kinematica/hardware/board.py (the emulator); keep them equal.

#include <Servo.h>

#define PROTOCOL_VERSION 2
#define QUEUE_DEPTH 8
#define WATCHDOG_MS 500
#define SPEED_MIN 20
#define SPEED_MAX 100
#define ACCEL 400
#define HOME_SPEED 40
#define MS_MIN 1
#define MS_MAX 60000
#define MAX_LINE 64
#define SOFT_START_PIN 12
#define SOFT_LOW_MS 2000
#define SOFT_START_MS 6000
#define NO_SEQ -1L

const char *const NAMES[6] = {"M1", "M2", "M3", "M4", "M5", "M6"};
const uint8_t PINS[6] = {11, 10, 9, 6, 5, 3};
const int LO[6] = {0, 15, 0, 0, 0, 10};
const int HI[6] = {180, 165, 180, 180, 180, 73};
const int HOME_POS[6] = {90, 45, 180, 180, 90, 10};

struct Segment {
  int target[6];
  long ramp;    // ms of speeding up, and of slowing down; 0: linear (a streamed point)
  long length;  // ms: the segment lasts ramp + length
  long seq;     // NO_SEQ: a P or H move, answered by OK
};

Servo servos[6];
Segment queue[QUEUE_DEPTH];
uint8_t head = 0, count = 0;
int written[6];            // the degrees last written to each servo
int startPos[6];           // where the moving segment started
unsigned long segStart;    // millis() when the moving segment started
long expectedSeq = 0;
unsigned long lastLine = 0;
char line[MAX_LINE + 1];
uint8_t lineLen = 0;
bool lineBad = false;      // a byte outside printable ASCII, or more than MAX_LINE of them

// --- helpers -------------------------------------------------------------------------------
uint8_t crc8(const char *s, size_t n) {
  uint8_t crc = 0;
  for (size_t i = 0; i < n; i++) {
    crc ^= (uint8_t)s[i];
    for (uint8_t b = 0; b < 8; b++) crc = (crc & 0x80) ? (uint8_t)((crc << 1) ^ 0x07) : (uint8_t)(crc << 1);
  }
  return crc;
}

void printHex2(uint8_t v) {
  const char *digits = "0123456789ABCDEF";
  Serial.print(digits[v >> 4]);
  Serial.print(digits[v & 0x0F]);
}

// The value of an upper-case hex digit, -1 for any other character.
int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// floor(n / m) for m > 0, also for negative n (C division truncates toward zero)
long floorDiv(long n, long m) {
  long q = n / m;
  if ((n % m != 0) && (n < 0)) q--;
  return q;
}

// Exactly `count` whole numbers separated by commas (spaces allowed around them).
bool parseInts(const char *s, long *out, uint8_t count) {
  for (uint8_t i = 0; i < count; i++) {
    while (*s == ' ') s++;
    bool neg = false;
    if (*s == '-') { neg = true; s++; }
    if (*s < '0' || *s > '9') return false;
    long v = 0;
    uint8_t digits = 0;
    while (*s >= '0' && *s <= '9') {
      if (++digits > 6) return false;
      v = v * 10 + (*s++ - '0');
    }
    out[i] = neg ? -v : v;
    while (*s == ' ') s++;
    if (i + 1 < count) {
      if (*s != ',') return false;
      s++;
    }
  }
  return *s == '\0';
}

bool streaming() { return count > 0 && queue[(head + count - 1) % QUEUE_DEPTH].seq != NO_SEQ; }

void writeServos(const int *deg) {
  for (uint8_t i = 0; i < 6; i++) {
    if (written[i] != deg[i]) servos[i].write(deg[i]);
    written[i] = deg[i];
  }
}

unsigned long duration(const Segment &seg) { return (unsigned long)(seg.ramp + seg.length); }

// The ramp R and the rest L (ms) of a move whose furthest joint turns `far` degrees at up to
// `speed`: R = ceil(1000 v / a) if far >= v^2 / a, else the least R with R^2 a >= 10^6 far;
// L = max(ceil(1000 far / v), R). Peak speed far / L <= v, acceleration far / (R L) <= a.
void moveProfile(long far, long speed, long *ramp, long *length) {
  long r = 0;
  if (far <= 0) { *ramp = 0; *length = 0; return; }
  if (far * ACCEL >= speed * speed) r = (1000L * speed + ACCEL - 1) / ACCEL;
  else while (r * r * ACCEL < 1000000L * far) r++;
  long l = (1000L * far + speed - 1) / speed;
  *ramp = r;
  *length = l > r ? l : r;
}

// Where the moving segment puts the servos `elapsed` ms after its start, rounded half up: the
// fraction num/den of the way, linear for a streamed point, else the trapezoid: e^2 / 2RL speeding
// up, (2e - R) R / 2RL cruising, 1 - (D - e)^2 / 2RL slowing down. The products stay below 2^31:
// R <= 250 and L <= 9000 ms for a move (2 * 180 * 2RL < 1.7e9), L <= 60000 for a point.
void positionAt(unsigned long elapsed, int *out) {
  const Segment &seg = queue[head];
  long R = seg.ramp, L = seg.length, D = R + L;
  long e = elapsed > (unsigned long)D ? D : (long)elapsed;
  long num, den;
  if (D == 0) { num = 1; den = 1; }
  else if (R == 0) { num = e; den = L; }
  else {
    den = 2 * R * L;
    if (e <= R) num = e * e;
    else if (e <= L) num = R * (2 * e - R);
    else num = den - (D - e) * (D - e);
  }
  for (uint8_t i = 0; i < 6; i++) {
    long d = (long)seg.target[i] - startPos[i];
    out[i] = startPos[i] + (int)floorDiv(2 * d * num + den, 2 * den);
  }
}

// --- replies -------------------------------------------------------------------------------
// boot: 1 from setup() (the board has just powered up or reset), 0 in answer to V.
void sendBanner(bool boot) {
  Serial.print(F("READY v="));
  Serial.print(PROTOCOL_VERSION);
  Serial.print(F(" depth="));
  Serial.print(QUEUE_DEPTH);
  Serial.print(F(" watchdog="));
  Serial.print(WATCHDOG_MS);
  Serial.print(F(" speed="));
  Serial.print(SPEED_MIN);
  Serial.print(F(".."));
  Serial.print(SPEED_MAX);
  Serial.print(F(" accel="));
  Serial.print(ACCEL);
  for (uint8_t i = 0; i < 6; i++) {
    Serial.print(' ');
    Serial.print(NAMES[i]);
    Serial.print('=');
    Serial.print(LO[i]);
    Serial.print(F(".."));
    Serial.print(HI[i]);
  }
  Serial.print(F(" home="));
  for (uint8_t i = 0; i < 6; i++) {
    if (i) Serial.print(',');
    Serial.print(HOME_POS[i]);
  }
  Serial.print(boot ? F(" boot=1\n") : F(" boot=0\n"));
}

void sendAck(long seq) {
  char text[16];
  text[0] = 'A';
  text[1] = ' ';
  ltoa(seq, text + 2, 10);
  Serial.print(text);
  Serial.print('*');
  printHex2(crc8(text, strlen(text)));
  Serial.print('\n');
}

void sendState() {
  Serial.print(F("Q "));
  for (uint8_t i = 0; i < 6; i++) {
    if (i) Serial.print(',');
    Serial.print(written[i]);
  }
  Serial.print('\n');
}

// Stop where the arm is at time `at` (millis): the moving segment's position then, queue dropped.
void hold(unsigned long at) {
  if (count > 0) {
    int pos[6];
    positionAt(at - segStart, pos);
    writeServos(pos);
  }
  count = 0;
}

// An error reply; during a stream it ends the stream (the arm holds where it is).
void sendError(uint8_t code, const __FlashStringHelper *text, unsigned long now) {
  if (streaming()) hold(now);
  Serial.print('E');
  Serial.print(code);
  Serial.print(' ');
  Serial.print(text);
  Serial.print('\n');
}

// "E1 M2=170 outside 15..165" for the first servo out of its range; true if one was.
bool rangeError(const long *deg, unsigned long now) {
  for (uint8_t i = 0; i < 6; i++) {
    if (deg[i] < LO[i] || deg[i] > HI[i]) {
      if (streaming()) hold(now);
      Serial.print(F("E1 "));
      Serial.print(NAMES[i]);
      Serial.print('=');
      Serial.print(deg[i]);
      Serial.print(F(" outside "));
      Serial.print(LO[i]);
      Serial.print(F(".."));
      Serial.print(HI[i]);
      Serial.print('\n');
      return true;
    }
  }
  return false;
}

void valueError(const __FlashStringHelper *what, long v, long lo, long hi, unsigned long now) {
  if (streaming()) hold(now);
  Serial.print(F("E1 "));
  Serial.print(what);
  Serial.print('=');
  Serial.print(v);
  Serial.print(F(" outside "));
  Serial.print(lo);
  Serial.print(F(".."));
  Serial.print(hi);
  Serial.print('\n');
}

// --- the queue -------------------------------------------------------------------------------
const int *lastTarget() { return count ? queue[(head + count - 1) % QUEUE_DEPTH].target : written; }

void push(const long *deg, long ramp, long length, long seq, unsigned long now) {
  if (count == 0) {
    segStart = now;
    for (uint8_t i = 0; i < 6; i++) startPos[i] = written[i];
  }
  Segment &seg = queue[(head + count) % QUEUE_DEPTH];
  for (uint8_t i = 0; i < 6; i++) seg.target[i] = (int)deg[i];
  seg.ramp = ramp;
  seg.length = length;
  seg.seq = seq;
  count++;
}

// Finish the segments whose time is up, move the servos, and watch the host.
void advance(unsigned long now) {
  while (count > 0) {
    Segment &seg = queue[head];
    // the watchdog: a streamed point queued, no line for WATCHDOG_MS, and that moment came
    // before the moving segment's end: hold where the arm was at that moment
    if (streaming() && now - lastLine > WATCHDOG_MS && segStart + duration(seg) - lastLine > WATCHDOG_MS) {
      hold(lastLine + WATCHDOG_MS);
      Serial.print(F("E5 watchdog: host silent mid-stream, holding\n"));
      return;
    }
    if (now - segStart < duration(seg)) {
      int pos[6];
      positionAt(now - segStart, pos);
      writeServos(pos);
      return;
    }
    writeServos(seg.target);  // the exact target at the end
    if (seg.seq == NO_SEQ) Serial.print(F("OK\n"));
    else sendAck(seg.seq);
    segStart += duration(seg);  // the next one starts when this one ended: no drift
    for (uint8_t i = 0; i < 6; i++) startPos[i] = seg.target[i];
    head = (head + 1) % QUEUE_DEPTH;
    count--;
  }
}

// --- commands --------------------------------------------------------------------------------
void move(const long *deg, long speed, unsigned long now) {
  if (count > 0) { sendError(4, F("busy: a move or stream is in progress"), now); return; }
  if (rangeError(deg, now)) return;
  if (speed < SPEED_MIN || speed > SPEED_MAX) { valueError(F("speed"), speed, SPEED_MIN, SPEED_MAX, now); return; }
  long far = 0, ramp, length;
  for (uint8_t i = 0; i < 6; i++) far = max(far, labs(deg[i] - written[i]));
  moveProfile(far, speed, &ramp, &length);
  push(deg, ramp, length, NO_SEQ, now);
}

void streamPoint(char *text, unsigned long now) {
  char *star = strrchr(text, '*');
  int hi = -1, lo = -1;
  if (star && strlen(star) == 3) { hi = hexDigit(star[1]); lo = hexDigit(star[2]); }
  if (hi < 0 || lo < 0 || (uint8_t)(hi * 16 + lo) != crc8(text, star - text)) {
    sendError(2, F("bad checksum"), now);
    return;
  }
  *star = '\0';
  long v[8];
  if (!parseInts(text + 1, v, 8) || v[0] < 0) { sendError(0, F("malformed line"), now); return; }
  if (count > 0 && !streaming()) { sendError(4, F("busy: a move is in progress"), now); return; }
  if (count >= QUEUE_DEPTH) { sendError(4, F("queue full (8 points)"), now); return; }
  if (v[0] != expectedSeq && !(v[0] == 0 && count == 0)) {
    if (streaming()) hold(now);
    Serial.print(F("E3 expected "));
    Serial.print(expectedSeq);
    Serial.print(F(" got "));
    Serial.print(v[0]);
    Serial.print('\n');
    return;
  }
  const long *deg = v + 2;
  if (rangeError(deg, now)) return;
  if (v[1] < MS_MIN || v[1] > MS_MAX) { valueError(F("ms"), v[1], MS_MIN, MS_MAX, now); return; }
  const int *previous = lastTarget();
  for (uint8_t i = 0; i < 6; i++) {
    long step = labs(deg[i] - previous[i]);
    if (step * 1000L > (long)SPEED_MAX * v[1]) {  // exact: no slack for short segments to exploit
      if (streaming()) hold(now);
      Serial.print(F("E1 "));
      Serial.print(NAMES[i]);
      Serial.print(F(" step "));
      Serial.print(step);
      Serial.print(F(" in "));
      Serial.print(v[1]);
      Serial.print(F(" ms over "));
      Serial.print(SPEED_MAX);
      Serial.print(F(" deg/s\n"));
      return;
    }
  }
  expectedSeq = v[0] + 1;
  push(deg, 0, v[1], v[0], now);
}

void handleLine(char *text, bool bad, unsigned long now) {
  advance(now);
  lastLine = now;
  if (bad) { sendError(0, F("malformed line"), now); return; }
  while (*text == ' ') text++;
  size_t n = strlen(text);
  while (n && text[n - 1] == ' ') text[--n] = '\0';
  if (n == 0) return;
  long v[7];
  if (!strcmp(text, "?")) sendState();
  else if (!strcmp(text, "S")) { hold(now); Serial.print(F("OK\n")); }
  else if (!strcmp(text, "V")) sendBanner(false);
  else if (!strcmp(text, "K")) {}
  else if (text[0] == 'H' && text[1] == '\0') { long h[6] = {HOME_POS[0], HOME_POS[1], HOME_POS[2], HOME_POS[3], HOME_POS[4], HOME_POS[5]}; move(h, HOME_SPEED, now); }
  else if (text[0] == 'H' && parseInts(text + 1, v, 1)) { long h[6] = {HOME_POS[0], HOME_POS[1], HOME_POS[2], HOME_POS[3], HOME_POS[4], HOME_POS[5]}; move(h, v[0], now); }
  else if (text[0] == 'P' && parseInts(text + 1, v, 7)) move(v, v[6], now);
  else if (text[0] == 'T') streamPoint(text, now);
  else sendError(0, F("malformed line"), now);
}

// --- setup and loop ----------------------------------------------------------------------------
// The Braccio shield switches the servos' supply through a MOSFET on pin 12. As the Braccio
// library's begin() does, pulse it at a low duty cycle (~15 %) for SOFT_START_MS, a little lower for
// the first SOFT_LOW_MS, so the servos creep to the pulse they were given (home) with little
// torque instead of snapping there at full speed, then switch it on for good.
void softStart() {
  unsigned long t0 = millis();
  while (millis() - t0 < SOFT_START_MS) {
    bool first = millis() - t0 < SOFT_LOW_MS;
    digitalWrite(SOFT_START_PIN, HIGH);
    delayMicroseconds(first ? 80 : 75);
    digitalWrite(SOFT_START_PIN, LOW);
    delayMicroseconds(first ? 450 : 430);
  }
  digitalWrite(SOFT_START_PIN, HIGH);
}

void setup() {
  pinMode(SOFT_START_PIN, OUTPUT);
  digitalWrite(SOFT_START_PIN, LOW);  // servos unpowered until their first pulse is set
  for (uint8_t i = 0; i < 6; i++) {
    written[i] = HOME_POS[i];
    servos[i].write(HOME_POS[i]);     // the pulse they get when attached
    servos[i].attach(PINS[i]);
  }
  softStart();
  Serial.begin(115200);
  sendBanner(true);
  lastLine = millis();
}

void loop() {
  while (Serial.available() > 0) {
    uint8_t c = (uint8_t)Serial.read();
    if (c == '\n') {
      line[lineLen] = '\0';
      handleLine(line, lineBad, millis());
      lineLen = 0;
      lineBad = false;
    } else if (c == '\r') {
      // dropped wherever it is
    } else if (c < 0x20 || c > 0x7E || lineLen >= MAX_LINE) {
      lineBad = true;  // nothing stored: the buffer never overflows, NUL never cuts a line
    } else {
      line[lineLen++] = (char)c;
    }
  }
  advance(millis());
}
