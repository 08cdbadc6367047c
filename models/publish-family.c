// druba-expect: verdict=safe
// druba-expect: threads=3 verdict=safe
// One writer thread publishes a value (the data first, then the flag) to readers that main
// creates without bound: main starts the writer, then loops creating readers (the shape of
// SV-COMP pthread-ext's 27 to 35). Several functions in one program for every thread count: the
// translation is one template whose threads each take a role at their first step, the writer's
// at most once, a reader's any number of times (main, which only starts threads, takes none:
// docs/c.md). A reader that sees the flag sees the data. publish-family-broken.c sets the flag
// first.
#include <pthread.h>

void reach_error(void);

int data = 0;
int ready = 0;

void *writer(void *arg) {
  data = 42;
  ready = 1;
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
