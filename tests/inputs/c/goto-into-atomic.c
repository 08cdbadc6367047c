// A goto to a label inside an atomic section: the section is one step, so refused.
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
int x = 0;
int main(void) {
  __VERIFIER_atomic_begin();
  x = 1;
inside:
  x = 2;
  __VERIFIER_atomic_end();
  goto inside;
}
