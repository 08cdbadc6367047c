// What `druba verify`/`test` share between CPDS and `.drb` models: the mode names, the progress
// line and the schedule in the JSON report.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "abstraction/driver.h"
#include "common/json.h"
#include "common/resources.h"

namespace druba::cli {

// --jobs: 0 means one expansion thread per core.
inline unsigned JobsFromOption(unsigned jobs) {
  return jobs != 0 ? jobs : std::max(1U, std::thread::hardware_concurrency());
}

// About once a second on stderr: bounds, states, abstract states, successor calls/s, memory.
// `label` (e.g. "threads=3 ") goes before the bounds.
template <class Run>
void InstallProgress(LimitWatch& limits, const Run& run, std::string label = "") {
  limits.SetProgress(
      [&run, &limits, label = std::move(label), last_calls = std::uint64_t{0},
       last_s = 0.0]() mutable {
        const auto& ex = run.explorer();
        const double now = limits.clock().Seconds();
        const std::uint64_t calls = ex.stats().image_calls;
        const double rate =
            now > last_s ? static_cast<double>(calls - last_calls) / (now - last_s) : 0.0;
        std::string abstract = std::to_string(run.abstract_states().size()) + " abstract";
        if constexpr (requires { run.upper_bound_size(); }) {
          if (const auto upper = run.upper_bound_size()) {
            abstract += " of at most " + std::to_string(*upper);
          }
        }
        std::fprintf(stderr,
                     "druba: %6.1f s  %sr=%u d=%u  %zu states  %s  %.0f successor calls/s  "
                     "%.0f MB\n",
                     now, label.c_str(), ex.bounds().rounds, ex.bounds().delays, run.num_states(),
                     abstract.c_str(), rate, CurrentRssMb());
        last_calls = calls;
        last_s = now;
      },
      1.0);
}

// "proof" (which argument answered `safe`) and the sandwich proof's figures: "upper_bound" (|O|,
// null when not computed), its relation, passes and time, "symmetric_reached" (|Sym(U)| at the
// end), "symmetry_classes" and, when O was not used, "upper_bound_note".
inline void WriteProofJson(JsonWriter& w, const RunResult& result, const std::string& relation,
                           const ThreadSymmetry* symmetry) {
  w.Key("proof").String(ProofName(result.proof));
  w.Key("upper_bound");
  if (result.upper_bound) {
    w.UInt(*result.upper_bound);
  } else {
    w.Null();
  }
  w.Key("upper_bound_relation").String(relation);
  w.Key("upper_bound_passes").UInt(result.upper_bound_stats.passes);
  w.Key("upper_bound_time_s").Double(result.upper_bound_stats.time_s);
  if (!result.upper_bound_note.empty()) w.Key("upper_bound_note").String(result.upper_bound_note);
  w.Key("symmetric_reached").UInt(result.symmetric_reached);
  w.Key("symmetry_classes").BeginArray();
  if (symmetry != nullptr) {
    for (const auto& cls : symmetry->classes) {
      w.BeginArray();
      for (const std::uint32_t t : cls) w.UInt(t);
      w.EndArray();
    }
  }
  w.EndArray();
}

// One line on the sandwich proof for the human report (empty when it was not tried).
inline std::string ProofLine(const RunResult& result, const std::string& relation) {
  if (result.upper_bound_stats.passes == 0) return "";
  char buf[256];
  if (!result.upper_bound) return "  sandwich proof: " + result.upper_bound_note + "\n";
  std::snprintf(buf, sizeof buf,
                "  upper bound O: %zu abstract states (%s relation, %zu passes, %.3f s)",
                *result.upper_bound, relation.c_str(), result.upper_bound_stats.passes,
                result.upper_bound_stats.time_s);
  std::string out = buf;
  if (result.proof == Proof::kSandwich) {
    out += "; the reached states closed under the thread symmetry cover it\n";
  } else if (!result.upper_bound_note.empty()) {
    out += "; not used: " + result.upper_bound_note + "\n";
  } else {
    out += "; the reached states closed under the thread symmetry: " +
           std::to_string(result.symmetric_reached) + "\n";
  }
  return out;
}

// The first line of a --dump-abstract file that is not exactly alpha(R) (empty when it is): what
// the states are, and why the run ended.
inline std::string DumpHeader(Verdict verdict, const std::string& reason, Proof proof) {
  if (verdict == Verdict::kSafe && proof == Proof::kUpperBound) {
    return "# an upper bound of the reachable abstract states, not exactly them (" + reason + ")\n";
  }
  if (verdict == Verdict::kSafe) return "";
  return "# incomplete: the abstract states reached before the run ended (" +
         std::string(VerdictName(verdict)) + ": " + reason + ")\n";
}

// "rounds", "delays" (the bounds at the end) and "plateau_start" (where the abstract set last
// grew).
inline void WriteBoundsJson(JsonWriter& w, const RunResult& result) {
  w.Key("rounds").UInt(result.bounds.rounds);
  w.Key("delays").UInt(result.bounds.delays);
  w.Key("plateau_start").BeginObject();
  w.Key("rounds").UInt(result.plateau_start.rounds);
  w.Key("delays").UInt(result.plateau_start.delays);
  w.EndObject();
}

// "schedule": every bound raise, its bounds after, the abstract states it added, the successor
// calls so far.
inline void WriteScheduleJson(JsonWriter& w, const std::vector<RaiseEvent>& schedule) {
  w.Key("schedule").BeginArray();
  for (const RaiseEvent& e : schedule) {
    w.BeginObject();
    w.Key("raise").String(e.dim == RaiseEvent::Dim::kStart    ? "start"
                          : e.dim == RaiseEvent::Dim::kRounds ? "rounds"
                                                              : "delays");
    w.Key("rounds").UInt(e.after.rounds);
    w.Key("delays").UInt(e.after.delays);
    w.Key("new_abstract").UInt(e.new_abstract);
    w.Key("image_calls").UInt(e.image_calls);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace druba::cli
