// druba-expect-long: verdict=safe proof=invariant
// druba-expect: threads=3 verdict=safe
// locked-counter.drb in C, as SV-COMP's 01_inc writes it: threads that main creates without
// bound take a lock, give up when the counter is at its largest value, else add one to it, let
// the lock go, and assert that the counter is past what they read. An unsigned counter wraps at
// 2^32, which the guard keeps it from. Proved for every thread count from 1 by invariants read
// off 1 to 4 threads (the abstraction's refinement unrolls the guard without end).
// locked-counter-pthreads-broken.c lets the lock go before the write.
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
  value = mine + 1;
  __VERIFIER_atomic_release();
  if (!(value > mine)) reach_error();
  return 0;
}

int main(void) {
  pthread_t t;
  while (1) pthread_create(&t, 0, worker, 0);
}
