// Unsigned arithmetic wraps (ILP32): x-- from 0 is 4294967295, and 250 + 10 in an unsigned
// char is 4. With integers unbounded, the error is out of reach and the verdict a wrong safe.
void reach_error(void);
unsigned int x = 0;
unsigned char c = 250;
int main(void) {
  x--;
  if (x > 5) { c = c + 10; }
  unsigned int y = x + 2;
  if (y == 1 && c == 4) reach_error();
  return 0;
}
