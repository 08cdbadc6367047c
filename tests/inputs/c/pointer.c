// A pointer variable: outside the subset, refused at its place.
int x;
int main(void) {
  int *p = &x;
  return 0;
}
