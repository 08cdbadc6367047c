#include "cpds/replay.h"

#include <optional>
#include <span>
#include <vector>

#include "common/diagnostics.h"

namespace druba::cpds {

ReplayOutcome ReplayTrace(CpdsModel& model, const TopKAbstraction& abs, const JsonValue& doc,
                          const std::string& model_file, const std::string& target_text) {
  const std::uint32_t n = model.num_threads();
  std::vector<Word> state;
  model.ForEachInitial([&](StateView s) { state.assign(s.begin(), s.end()); });
  CheckTraceHeader(doc, n, "target");
  const bool deadlock = doc.At("property").AsString() == "deadlock";
  const JsonValue& steps = doc.At("steps");
  const auto take = [&](const JsonValue& step, std::uint32_t thread, const std::string& kind,
                        const std::string& slot) {
    std::optional<std::uint32_t> wanted;
    if (kind == "step") {
      const std::uint32_t line = step.At("line").AsUInt();
      const auto& rules = model.cpds().threads[thread].rules;
      for (std::uint32_t a = 0; a < rules.size(); ++a) {
        if (rules[a].line == line) wanted = a;
      }
      if (!wanted) {
        throw InputError(step.At("line").where, slot + "thread " + std::to_string(thread) +
                                                    " has no rule on line " + std::to_string(line) +
                                                    " of " + model_file);
      }
      const std::string rule = RuleToString(model.rule(thread, *wanted));
      if (step.Has("rule") && step.At("rule").AsString() != rule) {
        throw InputError(step.At("rule").where,
                         slot + "the rule on line " + std::to_string(line) + " is " + rule);
      }
    }
    std::optional<std::vector<Word>> next;
    bool any = false;
    model.ForEachSuccessor(StateView(state), thread, [&](std::uint32_t action, StateView s) {
      any = true;
      if (wanted && action == *wanted) next.emplace(s.begin(), s.end());
    });
    if (kind == "stutter" && any) {
      throw InputError(step.where, slot + "thread " + std::to_string(thread) +
                                       " has an enabled rule, so it cannot stutter");
    }
    if (kind == "step" && !next) {
      throw InputError(step.where, slot + "rule " + model.DescribeRule(thread, *wanted) +
                                       " is not enabled in " +
                                       model.DescribeState(StateView(state)));
    }
    if (next) state = *next;
  };
  const std::uint32_t delays =
      WalkTrace(steps, n, take, [&] { return model.DescribeState(StateView(state)); });
  const auto slots = static_cast<std::uint32_t>(steps.items.size() - 1);
  CheckCounter(doc, "rounds", (slots + n - 1) / n, "the trace: ");
  CheckCounter(doc, "delays", delays, "the trace: ");
  std::vector<Word> a(abs.width());
  abs.Abstract(StateView(state), std::span<Word>(a));
  // A deadlock trace ends deadlocked (the caller sets the abstraction's deadlock from the trace's
  // property), a target trace at the target.
  if (deadlock ? !abs.Deadlocked(StateView(a)) : !abs.Violates(StateView(a))) {
    throw InputError(steps.items.back().where,
                     "the trace ends (at this slot) in " + model.DescribeState(StateView(state)) +
                         (deadlock ? ", which is not deadlocked"
                                   : ", which does not match the target " + target_text));
  }
  return {slots, delays, model.DescribeState(StateView(state))};
}

}  // namespace druba::cpds
