// A `.drb` program in the words of druba's reports (src/run): a state is each variable's value
// and each thread's location, a step is its label, statement and line, an abstract state is the
// tracked locations and the predicates' values.
#pragma once

#include <cstdint>
#include <string>

#include "interp/model.h"
#include "predabs/driver_setups.h"
#include "predabs/predicate_abstraction.h"
#include "run/report.h"
#include "run/run_count.h"

namespace druba::predabs {

// A `.drb` program in the report's words: a step is its label, statement and line.
struct DrbDescriber {
  const Program& program;
  IntModel& model;  // not const: a failure is evaluated again (FailureOf)
  const PredicateAbstraction& abs;

  std::string State(StateView s) const { return model.DescribeState(s); }
  std::string Abstract(StateView a) const { return "(" + abs.Describe(a) + ")"; }
  void Step(const TraceStep& prev, const TraceStep& cur, run::TraceLine& line) const {
    const Statement& st = program.statements[cur.action];
    // An unlabelled statement's label is `@LINE` (docs/drb.md): its line says it once.
    line.action = (st.label.starts_with("@") ? "" : st.label + ": ") + st.text + " (line " +
                  std::to_string(st.where.line) + ")";
    line.changes = model.DescribeChanges(StateView(prev.state), StateView(cur.state));
    if (cur.state[model.PcSlot(cur.thread)] == program.error_pc) {
      line.failure = FailureText(model.FailureOf(StateView(prev.state), cur.thread, cur.action));
    }
    line.fields = {{"label", st.label}, {"line", st.where.line}, {"statement", st.text}};
    if (!line.failure.empty()) line.fields["failure"] = line.failure;
  }
  std::string DotAction(std::uint32_t t, std::uint32_t a) const {
    return "T" + std::to_string(t) + " " + program.statements[a].label;
  }
  std::string PropertyOf(StateView state) const {
    return model.AnyThreadFailed(state) ? "assertion" : "deadlock";
  }
};
static_assert(run::Describer<DrbDescriber>);

}  // namespace druba::predabs
