// druba-mpi's command line for any table of kinds (mpi/main.cc gives it druba's): druba's
// `test` and `verify` with their options as druba declares them (cli/command_line.h), each kind's
// group included, of which a run takes those its kind's distributed run takes (the others are
// refused, never ignored, and left out of --help); its own options (--batch-bytes, --stepwise,
// --progress-every); the report, printed by process 0 as druba prints it, and druba's exit codes.
#pragma once

#include <span>

#include "distributed/comm.h"
#include "mpi_front/kind.h"

namespace druba::mpi {

// Parses `argv`, runs the command at every process and returns this process's exit code
// (process 0's is druba's; the others end with 0 once the report is out).
int Main(int argc, char** argv, distributed::Comm& comm, std::span<Kind* const> kinds);

}  // namespace druba::mpi
