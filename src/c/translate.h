// The C kind (docs/c.md): a C program with POSIX threads, read by Clang's library and written as
// a `.drb` program that every engine of the .drb kind runs unchanged. Each step of the `.drb`
// program touches at most one shared variable (a C statement that reads or writes more is cut
// into steps through thread-local temporaries, as the machine would run it), so its interleavings
// are the C program's; a statement's label names its C line (`c12`).
#pragma once

#include <string>

namespace druba::c {

// The `.drb` text of the C program in `file`; throws InputError at file:line:col for C clang
// refuses and for what is outside the subset, naming what it is.
std::string TranslateC(const std::string& file);

// The `.drb` text of a model: a C program's translation, or a `.drb` file's contents.
std::string ModelSource(const std::string& model);

}  // namespace druba::c
