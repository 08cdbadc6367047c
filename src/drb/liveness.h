// Which thread-local variables a location may still read (live variables, the compilers'
// backward analysis over the template's statements): a value held at a location where the
// variable is dead is never read again, so a candidate invariant about it says nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "drb/ast.h"

namespace druba::drb {

// [pc][local]: whether, at location pc (before its statement runs), the thread may read its own
// copy of the local before writing it. Over-approximate: a read anywhere in a statement counts,
// and only a write at the top of a statement's body (on every path) kills.
std::vector<std::vector<bool>> LiveLocals(const Program& program);
// The same, or read by another thread anywhere (`flag[j]`: Szymanski's flags are read by the
// others' scans, OthersLocals): a candidate about a local dead here says nothing a proof needs.
std::vector<std::vector<bool>> LiveToAnyThread(const Program& program);

}  // namespace druba::drb
