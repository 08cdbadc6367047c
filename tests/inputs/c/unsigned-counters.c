// Two unsigned counters that move together without end (pthread-ext's 13_unverif at one thread):
// each `+ 1` wraps at 2^32. Written as a remainder, the wrap left the Horn solver stuck (unknown
// after 30 s); as a comparison (`if x + 1 >= 2^32 then ...`) the invariant s == l comes at once.
void reach_error(void);
unsigned int s = 0;
int main(void) {
  unsigned int l = 0;
  while (1) {
    s = s + 1;
    l++;
    if (s != l) reach_error();
  }
}
