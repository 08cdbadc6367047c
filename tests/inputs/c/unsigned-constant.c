// A constant expression of an unsigned type wraps as any other: 0u - 1 is 4294967295 (ILP32).
// Read as the unbounded -1 it never equals x, and the error was a wrong false.
void reach_error(void);
unsigned int x = 4294967295u;
int main(void) {
  if (x != 0u - 1) reach_error();
  if (x + 1 != 0u) reach_error();
  return 0;
}
