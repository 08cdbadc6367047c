#include "mpi_front/count_run.h"

#include <fmt/format.h>

#include "abstraction/verdict.h"
#include "distributed/progress.h"

namespace druba::mpi {

run::Section Spread::Section(const distributed::Comm& comm) const {
  std::vector<std::uint64_t> unused;
  std::vector<double> peak_mb;
  distributed::GatherFigures(comm, 0, /*peak=*/true, unused, peak_mb);
  double sum = 0;
  for (const double mb : peak_mb) sum += mb;
  return {"distributed",
          {{"processes", comm.size()},
           {"runs", runs},
           {"states_by_process", states_by_process},
           {"states_sent", states_sent},
           {"bytes_sent", bytes_sent},
           {"messages", messages},
           {"exchanges", exchanges},
           {"peak_rss_mb_by_process", peak_mb}},
          fmt::format("  distributed over {} process{}, {}: states per process {}; sent {} "
                      "states, {} bytes, in {} messages over {} exchanges; peak memory per "
                      "process: {:.1f} MB (sum {:.1f} MB)\n",
                      comm.size(), comm.size() == 1 ? "" : "es", Counted(runs, "run"),
                      fmt::join(states_by_process, " "), states_sent, bytes_sent, messages,
                      exchanges, fmt::join(peak_mb, " "), sum),
          run::Section::Place::kDetail};
}

void SetFigures(const distributed::Outcome& done, std::uint32_t threads, run::CountRun& out) {
  out.threads = threads;
  out.result = done.result;
  out.concrete_states = done.states;
  out.keys = done.keys;
  out.pareto_pairs = done.pairs;
  out.stats.image_calls = done.result.image_calls;
  out.stats.transitions = done.transitions;
  out.num_abstract = done.abstract_states.value_or(0);
}

}  // namespace druba::mpi
