// druba-expect: verdict=safe
// Two threads each claim a slot of a shared array: a counter taken under a mutex names the slot,
// the thread writes its id there and checks it is still its own, in a switch on the slot. Arrays,
// a switch with a case that falls through, and a function's value used in a declaration, as
// docs/c.md has them; each access of a shared variable or element is a step of its own.
#include <pthread.h>

void reach_error(void);

pthread_mutex_t m;
int owner[3];  // the id of the thread holding each slot (0: free)
int next = 0;

int claim(int id) {
  int slot;
  pthread_mutex_lock(&m);
  slot = next;
  next = next + 1;
  pthread_mutex_unlock(&m);
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
