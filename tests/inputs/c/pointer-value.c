// A pointer parameter used as a value, not through `*p`: refused at its place.
int x = 0;
void set(int *p) {
  if (p) *p = 1;
}
int main(void) {
  set(&x);
  return 0;
}
