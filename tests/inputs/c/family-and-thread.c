// A fixed thread beside a family created without bound: several templates in one every-count
// program, which druba does not have yet; refused at the loop's pthread_create.
#include <pthread.h>
int x = 0;
void *one(void *arg) { x = 1; return 0; }
void *many(void *arg) { x = 2; return 0; }
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, one, 0);
  while (1) pthread_create(&t, 0, many, 0);
}
