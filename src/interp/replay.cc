#include "interp/replay.h"

#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "interp/model.h"

namespace druba::predabs {
namespace {

// The trace's last state must violate what the trace says it does: a deadlock (no thread can
// move, some has not finished) when its "property" says so, else a failed thread.
void CheckLastState(IntModel& model, StateView state, const JsonValue& doc) {
  if (doc.Has("property") && doc.At("property").AsString() == "deadlock") {
    if (!model.Deadlocked(state)) {
      std::string why = ", where every thread has finished";
      for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
        if (model.CanMove(state, t)) {
          why = ", which is not deadlocked: thread " + std::to_string(t) + " can move";
          break;
        }
      }
      throw InputError(doc.At("property").where,
                       "the trace ends in " + model.DescribeState(state) + why);
    }
  } else if (!model.AnyThreadFailed(state)) {
    throw InputError(doc.At("steps").items.back().where, "the trace ends (at this slot) in " +
                                                             model.DescribeState(state) +
                                                             ", where no thread has failed");
  }
}

// Everything else a slot says of the statement it took (from `before` to `after`) must be true of
// it too: its line, its text, and whether and why the step fails.
void CheckSlotClaims(const JsonValue& step, const std::string& slot, const Statement& st,
                     IntModel& model, StateView before, StateView after, std::uint32_t thread,
                     std::uint32_t action) {
  std::string wrong = slot;
  wrong.append("statement '").append(st.label);
  if (step.Has("line") && step.At("line").AsUInt() != st.where.line) {
    wrong.append("' is on line ").append(std::to_string(st.where.line));
    throw InputError(step.At("line").where, wrong);
  }
  if (step.Has("statement") && step.At("statement").AsString() != st.text) {
    wrong.append("' reads '").append(st.text).append("'");
    throw InputError(step.At("statement").where, wrong);
  }
  if (step.Has("failure")) {  // the slot says the thread fails, and why
    const JsonValue& failure = step.At("failure");
    const bool fails = after[model.PcSlot(thread)] == model.program().error_pc;
    const std::string why = fails ? FailureText(model.FailureOf(before, thread, action)) : "";
    if (failure.AsString() != why) {
      std::string message = slot;
      message.append(fails ? "the step fails: " + why : "the step does not fail");
      throw InputError(failure.where, message);
    }
  }
}

}  // namespace

ReplayOutcome ReplayTrace(const Program& program, const JsonValue& doc,
                          const std::string& trace_file) {
  // One template runs with any count; several fix it.
  const std::uint32_t n =
      CheckTraceHeader(doc, program.templates.size() == 1 ? 0 : program.NumThreads(), "assertion");
  IntModel model(program, n);
  std::vector<Word> state;
  model.ForEachInitial([&](StateView s) { state.assign(s.begin(), s.end()); });
  const JsonValue& steps = doc.At("steps");
  const auto take = [&](const JsonValue& step, std::uint32_t thread, const std::string& kind,
                        const std::string& slot) {
    std::vector<std::vector<Word>> successors;
    std::vector<std::uint32_t> actions;
    model.ForEachSuccessor(StateView(state), thread, [&](std::uint32_t action, StateView s) {
      actions.push_back(action);
      successors.emplace_back(s.begin(), s.end());
    });
    if (kind == "stutter") {
      if (!successors.empty()) {
        throw InputError(step.where, slot + "thread " + std::to_string(thread) +
                                         " has an enabled statement, so it cannot stutter");
      }
      return;
    }
    const std::string& label = step.At("label").AsString();
    for (std::size_t k = 0; k < successors.size(); ++k) {
      const bool same_state =
          !step.Has("state") ||
          step.At("state").AsString() == model.DescribeState(StateView(successors[k]));
      const Statement& st = program.statements[actions[k]];
      if (st.label == label && same_state) {
        CheckSlotClaims(step, slot, st, model, StateView(state), StateView(successors[k]), thread,
                        actions[k]);
        state = successors[k];
        return;
      }
    }
    std::string message = slot;
    message.append("thread ")
        .append(std::to_string(thread))
        .append(" cannot take statement '")
        .append(label)
        .append("' to the recorded state from ")
        .append(model.DescribeState(StateView(state)));
    throw InputError(step.where, message);
  };
  std::uint32_t delays = 0;
  try {
    delays = WalkTrace(steps, n, take, [&] { return model.DescribeState(StateView(state)); });
  } catch (const ValueOverflow& overflow) {
    throw InputError({trace_file, 0, 0},
                     std::string("the trace cannot be replayed: ") + overflow.what());
  }
  const auto slots = static_cast<std::uint32_t>(steps.items.size() - 1);
  CheckCounter(doc, "rounds", (slots + n - 1) / n, "the trace: ");
  CheckCounter(doc, "delays", delays, "the trace: ");
  CheckLastState(model, StateView(state), doc);
  return {slots, delays, model.DescribeState(StateView(state))};
}

}  // namespace druba::predabs
