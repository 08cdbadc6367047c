// druba-expect: verdict=safe
// Dekker's mutual exclusion in C with POSIX threads, written the way SV-COMP's tasks are: main
// starts one thread and then runs the other thread's function itself (`second(0)`: a null
// pointer for its argument, which it never reads), the property is an assert macro whose
// condition is the macro's argument, and the exit protocol is one comma expression (two steps,
// in C's order). Every access of a shared variable is a step of its own (docs/c.md).
#include <pthread.h>

void reach_error(void);
#define assert(e) { if (!(e)) { ERROR: reach_error(); } }

int flag0 = 0, flag1 = 0, turn = 0, inside = 0;

void *first(void *arg) {
  flag0 = 1;
  while (flag1) {
    if (turn != 0) {
      flag0 = 0;
      while (turn != 0) {
      }
      flag0 = 1;
    }
  }
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
