// druba-expect: verdict=violation
// druba-expect: threads=2 verdict=violation
// publish-family.c broken: the writer sets the flag before the data, so a reader can see the
// flag and the old data (at 2 threads: the writer and one reader).
#include <pthread.h>

void reach_error(void);

int data = 0;
int ready = 0;

void *writer(void *arg) {
  ready = 1;
  data = 42;
  return 0;
}

void *reader(void *arg) {
  if (ready) {
    if (data != 42) reach_error();
  }
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  while (1) pthread_create(&t, 0, reader, 0);
}
