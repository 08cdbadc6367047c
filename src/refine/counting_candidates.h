// Counting candidates of refinement (refine.h, CandidatePredicates): a shared counter as a weighted
// count of the threads by location, read off the program's text.
#ifndef DRUBA_REFINE_COUNTING_CANDIDATES_H_
#define DRUBA_REFINE_COUNTING_CANDIDATES_H_

#include <string>
#include <vector>

#include "interp/program.h"

namespace druba::predabs {

// For a program of one thread template: for each shared integer counter that the threads move by
// constants, `x == count(j: pc[j] == a) + 2 * count(j: pc[j] == b || pc[j] == end) + init`, the
// count of each location weighted by the counter's change from the first location to it (its
// potential), alone and split by each Boolean local. `j` is the bound variable's name.
void CountingAtoms(const Program& program, const std::string& j, std::vector<std::string>& out);

}  // namespace druba::predabs

#endif  // DRUBA_REFINE_COUNTING_CANDIDATES_H_
