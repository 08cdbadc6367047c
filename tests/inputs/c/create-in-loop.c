// Threads created in a counted loop (not a loop without bound): refused at the loop's
// pthread_create.
#include <pthread.h>
int x = 0;
void *many(void *arg) { x = 2; return 0; }
int main(void) {
  pthread_t t;
  for (int i = 0; i < 2; i++) pthread_create(&t, 0, many, 0);
  return 0;
}
