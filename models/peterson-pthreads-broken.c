// druba-expect: verdict=violation
// peterson-pthreads.c with the turn given before the flag is raised in the first thread: both
// threads can enter their critical sections (the run druba finds names the C lines). Every
// access of a shared variable is a step of its own, as the machine runs it (docs/c.md).
#include <pthread.h>

void reach_error(void);

int flag0 = 0, flag1 = 0, turn = 0, inside = 0;

void *first(void *arg) {
  turn = 1;
  flag0 = 1;
  while (flag1 == 1 && turn == 1) {
  }
  inside = inside + 1;
  if (inside != 1) reach_error();
  inside = inside - 1;
  flag0 = 0;
  return 0;
}

void *second(void *arg) {
  flag1 = 1;
  turn = 0;
  while (flag0 == 1 && turn == 0) {
  }
  inside = inside + 1;
  if (inside != 1) reach_error();
  inside = inside - 1;
  flag1 = 0;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, first, 0);
  pthread_create(&b, 0, second, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
