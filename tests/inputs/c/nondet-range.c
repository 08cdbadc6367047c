// __VERIFIER_nondet_int() is any int of ILP32, never 2^31 or beyond; _uint() any unsigned int.
// With the values unbounded, the error was reached: a wrong violation.
void reach_error(void);
int __VERIFIER_nondet_int(void);
unsigned int __VERIFIER_nondet_uint(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  unsigned u = __VERIFIER_nondet_uint();
  if (x > 2147483647 || x < -2147483648 || u > 4294967295u) reach_error();
  return 0;
}
