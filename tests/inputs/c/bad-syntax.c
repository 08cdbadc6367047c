// C that clang refuses: its message, at its place.
int main(void) {
  int x = ;
  return 0;
}
