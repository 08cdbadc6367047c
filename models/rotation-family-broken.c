// druba-expect: threads=3 verdict=violation
// druba-expect: verdict=violation
// rotation-family.c with the rotation made without the spare: the last slot takes the first
// slot's new value, which the second already holds, and the auditor sees two slots alike.
#include <pthread.h>

void reach_error(void);

int s0 = 1;
int s1 = 2;
int s2 = 3;
pthread_mutex_t lock;

void *worker(void *arg) {
  while (1) {
    pthread_mutex_lock(&lock);
    s0 = s1;
    s1 = s2;
    s2 = s0;
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
