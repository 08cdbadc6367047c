// druba-expect: verdict=safe
// druba-expect: threads=3 verdict=safe
// A lock taken by threads that main creates without bound (`while (1) pthread_create(...)`,
// SV-COMP pthread-ext's shape): a program for every thread count, proved for every count from 1.
// The lock is taken by a helper given the lock's address and run atomically, as SV-COMP's
// __VERIFIER_atomic_* functions are; it waits until the lock is free. tas-family-broken.c lets
// the lock go before the critical section.
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
  if (busy) reach_error();
  busy = 1;
  busy = 0;
  give(&lock);
  return 0;
}

int main(void) {
  pthread_t t;
  while (1) pthread_create(&t, 0, worker, 0);
}
