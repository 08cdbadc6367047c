// A `__thread` global is each thread's own: the thread sets its copy before it sets done, and
// main's copy is still 0 when main sees done. Read as one shared variable, main would find 1,
// and the error would be out of reach: a wrong safe.
#include <pthread.h>

void reach_error(void);

__thread int mine = 0;
int done = 0;

void *worker(void *arg) {
  mine = 1;
  done = 1;
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  while (done == 0) {
  }
  if (mine == 0) reach_error();
  return 0;
}
