// The Horn solver's two encodings (invariants/horn.h) on programs whose invariant needs the
// solver: one relation per location tuple against one relation with the locations as
// arguments, at growing thread counts. Items are location tuples. Run:
// build/perf/druba_horn_benchmarks (a run the solver leaves undecided within 60 s is reported
// as an error, with its time).
#include <benchmark/benchmark.h>

#include <string>

#include "common/files.h"
#include "interp/program.h"
#include "invariants/horn.h"

namespace druba::predabs {
namespace {

void BM_Horn(benchmark::State& state, const char* model, HornForm form) {
  const std::string path = std::string(DRUBA_MODELS) + "/" + model;
  const std::string source = ReadFile(path);
  const Program program = ParseProgram(source, path);
  const auto threads = static_cast<std::uint32_t>(state.range(0));
  std::size_t tuples = 0;
  for (auto _ : state) {
    const HornResult r = SolveHorn(program, threads, false, 60000, form);
    if (r.answer != SatResult::kUnsat) {
      state.SkipWithError(("not solved: " + r.reason).c_str());
      break;
    }
    tuples += r.tuples;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(tuples));
}

BENCHMARK_CAPTURE(BM_Horn, producer_consumer_tuples, "producer-consumer.drb", HornForm::kTuples)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Horn, producer_consumer_arguments, "producer-consumer.drb",
                  HornForm::kLocationArguments)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Horn, bakery_tuples, "bakery.drb", HornForm::kTuples)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Horn, bakery_arguments, "bakery.drb", HornForm::kLocationArguments)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Horn, ticket_lock_tuples, "ticket-lock.drb", HornForm::kTuples)
    ->DenseRange(2, 4)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Horn, ticket_lock_arguments, "ticket-lock.drb", HornForm::kLocationArguments)
    ->DenseRange(2, 4)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace druba::predabs

BENCHMARK_MAIN();
