// Residues as variables of their own, for the Horn solver (invariants/horn.h).
//
// A program that takes `x % m` (a seqlock's version parity, a ring buffer's slot `head % 2`)
// needs invariants about the residue: "the version is even where the writer is idle". Spacer's
// lemmas are linear over the relation's arguments and do not find such facts about `x` alone; a
// residue defined by `r == x mod m` in every rule does not help either (a seqlock stays undecided
// after 60 s). What does: a ghost variable per residue the program computes, kept equal to
// `x % m` by updates that need no `mod` where the program moves `x` by a literal (`x := x + 1`
// gives `r := r + 1 - m` or `r := r + 1`), reads of `x % m` replaced by the ghost (the seqlock:
// solved in 2.6 s).
//
// WithResidueGhosts copies the program with such ghosts: same statements, labels and control
// flow (the Horn encoding's location tuples are the same), each statement's body with the ghost
// updates added. In every reachable state of the copy each ghost equals its residue, so an
// inductive invariant of the copy, with each ghost read as `(x % m)`, is one of the program.
#pragma once

#include <cstdint>
#include <tuple>
#include <vector>

#include "interp/program.h"

namespace druba::predabs {

// A residue the program computes: `x % modulus` of a plain integer variable (a shared one, or the
// executing thread's own local) with a literal modulus from 2 to kMaxResidueModulus.
struct Residue {
  bool local = false;
  std::uint32_t var = 0;
  Int modulus;
  bool operator<(const Residue& other) const {
    return std::tie(local, var, modulus) < std::tie(other.local, other.var, other.modulus);
  }
};
inline constexpr int kMaxResidueModulus = 4;
// Each residue the program's statements compute, once, in a fixed order.
std::vector<Residue> ProgramResidues(const Program& program);

struct ResidueGhost {
  bool local = false;       // a local (one per thread) or a shared variable
  std::uint32_t var = 0;    // the variable whose residue it is
  std::uint32_t ghost = 0;  // the ghost: a variable of the copy, local or shared as `var`
  Int modulus;
};

struct GhostedProgram {
  Program program;  // the copy (its abstraction blocks left out)
  std::vector<ResidueGhost> ghosts;
};

// The copy with a ghost for each residue of ProgramResidues, but those of array elements and of
// locals some thread writes in another thread's entry (no ghost can follow those writes).
GhostedProgram WithResidueGhosts(const Program& program);

}  // namespace druba::predabs
