// A CPDS in the words of druba's reports (src/run): a state is `g|w0,w1,...`, a step is a rule
// with its line, an abstract state is the shared state and each thread's top K symbols.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cpds/model.h"
#include "cpds/top_k.h"
#include "run/report.h"
#include "run/run_count.h"

namespace druba::cpds {

// A CPDS in the report's words: a state is `g|w0,w1,...`, a step is a rule with its line.
struct CpdsDescriber {
  const CpdsModel& model;
  const TopKAbstraction& abs;

  std::string State(StateView s) const { return model.DescribeState(s); }
  std::string Abstract(StateView a) const { return abs.Describe(a); }
  void Step(const TraceStep& prev, const TraceStep& cur, run::TraceLine& line) const {
    line.action = model.DescribeRule(cur.thread, cur.action);
    if (cur.state[0] != prev.state[0]) line.changes += " shared=" + std::to_string(cur.state[0]);
    for (std::size_t t = 1; t < cur.state.size(); ++t) {
      if (cur.state[t] == prev.state[t]) continue;
      line.changes += " T" + std::to_string(t - 1) + "=" +
                      cpds::StackToString(model.stacks().Contents(cur.state[t]));
    }
    const cpds::Rule& rule = model.rule(cur.thread, cur.action);
    line.fields = {{"rule", cpds::RuleToString(rule)}, {"line", rule.line}};
  }
  std::string DotAction(std::uint32_t t, std::uint32_t a) const {
    return "T" + std::to_string(t) + ": " + model.DescribeRule(t, a);
  }
  std::string PropertyOf(StateView state) const {
    std::vector<Word> a(abs.width());
    abs.Abstract(state, std::span<Word>(a));
    return abs.deadlock() && abs.Deadlocked(StateView(a)) ? "deadlock" : "target";
  }
};
static_assert(run::Describer<CpdsDescriber>);

}  // namespace druba::cpds
