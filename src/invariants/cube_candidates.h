// Candidates that block counterexamples to induction (ordered_invariant.h, step 3's loop). When
// the candidates Houdini keeps do not exclude a failure, or drop a candidate made here, the
// solver's model shows the state the offending step starts from, with few threads. For each pair
// of its threads (self, j), that state is cut down to a cube of literals about the two and the
// shared variables (`pc[self] == testx`, `x == self`, `pc[j] == cs`, `j < self`, ...); the cube
// is generalized, a literal dropped at a time while no state of the finite instances matches it
// at any pair of their threads, and its negation, `forall j: j == self || pc[self] != testx ||
// x != self || pc[j] != cs`, is a candidate. IC3's inductive generalization with the finite
// instances as the oracle, in the way Cubicle's BRAB approximates the states backward reachable
// from the bad ones by what no finite instance reaches.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "interp/model.h"
#include "interp/program.h"

namespace druba::predabs {

// A state of the program at `threads` threads, values decoded.
struct ConcreteState {
  std::uint32_t threads = 0;
  std::vector<std::int64_t> pc;  // [thread]
  std::vector<Int> locals;       // [var * threads + thread]
  std::vector<Int> shared;
  std::uint32_t mover = 0;  // the thread whose step it starts
};

class CubeBlocker {
 public:
  explicit CubeBlocker(const Program& program);  // one thread template
  ~CubeBlocker();
  CubeBlocker(const CubeBlocker&) = delete;
  CubeBlocker& operator=(const CubeBlocker&) = delete;

  // Records what every pair of threads of a reached state shows.
  void Record(const IntModel& model, StateView state);
  // The negations of the generalized cubes of `cti`'s pairs of threads (those with its mover
  // where it has more than kAllPairs threads) that no recorded state matches, as `.drb` text
  // from `self`'s view; none once too many views were recorded.
  // `*seen`: every pair's cube is matched (a state like it is reached, most likely).
  std::vector<std::string> Block(const ConcreteState& cti, bool* seen = nullptr) const;

  struct Views;  // what the recorded states showed (cube_candidates.cc)

 private:
  const Program& program_;
  std::unique_ptr<Views> views_;
};

}  // namespace druba::predabs
