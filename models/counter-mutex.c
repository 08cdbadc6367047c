// druba-expect: verdict=safe
// Two threads add to a counter under a mutex (pthread_mutex_lock/unlock: `lock(m)`/`unlock(m)`
// in .drb), twice each; main joins them and finds the sum. The C version of a lock-protected
// counter; counter-mutex-broken.c forgets the lock in one thread.
#include <pthread.h>

void reach_error(void);

int counter = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *add(void *arg) {
  for (int i = 0; i < 2; i++) {
    pthread_mutex_lock(&m);
    counter = counter + 1;
    pthread_mutex_unlock(&m);
  }
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, add, 0);
  pthread_create(&b, 0, add, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  if (counter != 4) reach_error();
  return 0;
}
