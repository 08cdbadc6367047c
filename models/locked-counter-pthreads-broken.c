// druba-expect: verdict=violation violation-threads=3
// druba-expect: threads=3 verdict=violation
// locked-counter-pthreads.c with the lock let go between the read and the write: two threads read the
// same value, and a third that wrote in between sees the counter set back (three threads).
#include <pthread.h>

void reach_error(void);
void __VERIFIER_assume(int);

unsigned value = 0;
int lock = 0;

void __VERIFIER_atomic_acquire(void) {
  __VERIFIER_assume(lock == 0);
  lock = 1;
}

void __VERIFIER_atomic_release(void) { lock = 0; }

void *worker(void *arg) {
  unsigned mine;
  __VERIFIER_atomic_acquire();
  if (value == 4294967295u) {
    __VERIFIER_atomic_release();
    return 0;
  }
  mine = value;
  __VERIFIER_atomic_release();
  value = mine + 1;
  if (!(value > mine)) reach_error();
  return 0;
}

int main(void) {
  pthread_t t;
  while (1) pthread_create(&t, 0, worker, 0);
}
