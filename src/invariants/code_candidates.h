// What the code of a thread template says, for candidate invariants beside those read off the
// finite instances (instance_candidates.h): where control goes from each statement, what each
// statement writes, and the guards that hold on every way into a location.
//
// A guard the thread passed on its way to a location (`if !(value == MAX) then goto inc`, an
// `assume`, an assertion) holds there until the thread writes what it reads, unless another
// thread does: under a lock none does, and the candidate `pc[self] != inc || !(value == MAX)` is
// an invariant that no instance shows (the value is never near MAX there). Houdini keeps it only
// when it holds after every step of every thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "interp/program.h"

namespace druba::predabs {

// A variable a statement may write or a guard reads: a shared one, one of the thread's own (or
// another thread's copy of it), or a per-pair array.
struct VariableKey {
  enum class Kind : std::uint8_t { kShared, kLocal, kPair };
  Kind kind = Kind::kShared;
  std::uint32_t var = 0;
  bool operator==(const VariableKey& o) const { return kind == o.kind && var == o.var; }
  bool operator<(const VariableKey& o) const {
    return kind != o.kind ? kind < o.kind : var < o.var;
  }
};

// The template's control flow: for each location (a statement's index, or the template's end)
// the locations a step of its statement may go to, and the variables it may write.
struct CodeFlow {
  std::vector<std::vector<std::uint32_t>> successors;  // [pc]
  std::vector<std::vector<std::uint32_t>> predecessors;
  std::vector<std::vector<VariableKey>> writes;  // [pc], sorted
  bool Writes(std::uint32_t pc, const VariableKey& v) const;
};
CodeFlow CodeFlowOf(const Program& program);  // the first template's

// `pc[self] != L || G` for each guard G that holds on every way into the named location L
// (`labels[k]` names location `named[k]`).
void GuardCandidates(const Program& program, const std::vector<std::uint32_t>& named,
                     const std::vector<std::string>& labels, std::vector<std::string>& out);

}  // namespace druba::predabs
