// druba-expect: verdict=violation
// slot-claim.c with the counter taken without the mutex: both threads can read the same slot,
// and the one that wrote first finds the other's id there.
#include <pthread.h>

void reach_error(void);

pthread_mutex_t m;
int owner[3];  // the id of the thread holding each slot (0: free)
int next = 0;

int claim(int id) {
  int slot;
  slot = next;
  next = next + 1;
  owner[slot] = id;
  return slot;
}

void *worker(void *arg) {
  int mine = claim(1);
  switch (mine) {
    case 0:
    case 1:
      if (owner[mine] != 1) reach_error();
      break;
    default:
      reach_error();
  }
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  int mine = claim(2);
  if (owner[mine] != 2) reach_error();
  pthread_join(t, 0);
  if (next != 2) reach_error();
  return 0;
}
