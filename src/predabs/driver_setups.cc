#include "predabs/driver_setups.h"

#include <memory>

namespace druba::predabs {

std::vector<std::string> ClosureBreaks(PredicateAbstraction& abs, const StateStore& set,
                                       std::size_t max) {
  std::vector<std::string> breaks;
  std::string undecided;
  for (const ActionClass& c : abs.Classes()) {
    if (c.respects || !undecided.empty()) continue;
    for (std::uint32_t id = 0; id < set.size() && undecided.empty(); ++id) {
      abs.Successors(
          c, set.Get(id), set,
          [&](StateView to) {
            if (set.Find(to) || breaks.size() >= max) return;
            breaks.push_back(
                "(" + abs.Describe(set.Get(id)) + ") -> (" + abs.Describe(to) + ") under " +
                abs.DescribeStep(c.other ? kOtherThread : c.thread, c.stmt, set.Get(id), to));
          },
          &undecided);
    }
  }
  return breaks;
}

SandwichSetup MakeSandwich(const PredicateAbstraction& abs) {
  SandwichSetup setup;
  setup.upper_bound = [&abs](std::unique_ptr<StateStore> initial) {
    return MakeKleeneUpperBound(
        std::move(initial), [&abs](const StateStore& s) { return abs.MakeClosureOracle(s); },
        std::size_t{1} << 24);
  };
  setup.relation = "all-SAT";
  setup.share = 1e12;  // O at once (after the initial states' step)
  // The property is the program's own (no thread fails): O without a failed state proves it
  // before any exploration, as a CPDS target outside O does.
  setup.has_property = true;
  return setup;
}

std::optional<OrbitSetup> MakeOrbitSetup(const PredicateAbstraction& abs, const IntModel& model) {
  const std::uint32_t n = model.num_threads();
  if (!model.program().symmetric || n < 2) return std::nullopt;
  OrbitSetup setup{{model.PcSlot(0), model.PcSlot(1) - model.PcSlot(0), {{}}},
                   abs.spec().symmetric ? OrbitViews::kSwapsWithThread0 : OrbitViews::kAll};
  for (std::uint32_t t = 0; t < n; ++t) setup.symmetry.classes[0].push_back(t);
  return setup;
}

}  // namespace druba::predabs
