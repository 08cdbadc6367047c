// druba-expect: verdict=violation
// dekker-main-thread.c with the first thread's flag raised after it looked at the other's: both
// threads can enter their critical sections, and the run druba finds names the C lines.
#include <pthread.h>

void reach_error(void);
#define assert(e) { if (!(e)) { ERROR: reach_error(); } }

int flag0 = 0, flag1 = 0, turn = 0, inside = 0;

void *first(void *arg) {
  while (flag1) {
    if (turn != 0) {
      flag0 = 0;
      while (turn != 0) {
      }
      flag0 = 1;
    }
  }
  flag0 = 1;
  inside++;
  assert(inside == 1);
  inside--;
  turn = 1, flag0 = 0;
  return 0;
}

void *second(void *arg) {
  flag1 = 1;
  while (flag0) {
    if (turn != 1) {
      flag1 = 0;
      while (turn != 1) {
      }
      flag1 = 1;
    }
  }
  inside++;
  assert(inside == 1);
  inside--;
  turn = 0, flag1 = 0;
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, first, 0);
  second(0);
  pthread_join(t, 0);
  return 0;
}
