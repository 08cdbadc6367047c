// druba-expect: threads=3 verdict=safe
// Three slots hold 1, 2 and 3; workers that main creates without bound rotate them under a mutex
// (the first slot's value through a spare to the last), and one auditor thread checks under the
// same mutex that no two slots hold the same value: models/rotation.drb in C. That one is proved
// for every count in a second; this one is at fixed counts, and for every count ends unknown
// (the solver's timeouts on the 1400 candidates that the translation's temporaries bring, one per
// read: docs/c.md). rotation-family-broken.c rotates without the spare.
#include <pthread.h>

void reach_error(void);

int s0 = 1;
int s1 = 2;
int s2 = 3;
int spare = 0;
pthread_mutex_t lock;

void *worker(void *arg) {
  while (1) {
    pthread_mutex_lock(&lock);
    spare = s0;
    s0 = s1;
    s1 = s2;
    s2 = spare;
    pthread_mutex_unlock(&lock);
  }
  return 0;
}

void *auditor(void *arg) {
  while (1) {
    pthread_mutex_lock(&lock);
    if (s0 == s1 || s1 == s2 || s0 == s2) reach_error();
    pthread_mutex_unlock(&lock);
  }
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, auditor, 0);
  while (1) pthread_create(&t, 0, worker, 0);
}
