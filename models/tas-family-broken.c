// druba-expect: verdict=violation
// druba-expect: threads=2 verdict=violation
// tas-family.c broken: a thread gives the lock back before its critical section, so two
// threads of the family can be inside together (from 2 threads on).
#include <pthread.h>

void reach_error(void);
void __VERIFIER_assume(int);

int lock = 0;
int busy = 0;

void __VERIFIER_atomic_take(int *held) {
  __VERIFIER_assume(*held == 0);
  *held = 1;
}

void give(int *held) { *held = 0; }

void *worker(void *arg) {
  __VERIFIER_atomic_take(&lock);
  give(&lock);
  if (busy) reach_error();
  busy = 1;
  busy = 0;
  return 0;
}

int main(void) {
  pthread_t t;
  while (1) pthread_create(&t, 0, worker, 0);
}
