// druba-expect: verdict=violation
// counter-mutex.c without the mutex in the second thread: `counter = counter + 1` is a read and
// a write, two steps, and an update between them is lost.
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

void *add_unlocked(void *arg) {
  for (int i = 0; i < 2; i++) counter = counter + 1;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, add, 0);
  pthread_create(&b, 0, add_unlocked, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  if (counter != 4) reach_error();
  return 0;
}
