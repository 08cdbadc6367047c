// druba-mpi: druba's searches spread over the processes of an MPI run (docs/distributed.md):
// `test` and `verify` as druba's, for every kind of this table (src/mpi_front: each kind's
// distributed run), with druba's options, report and exit codes (mpi/command_line.cc). Each
// process reads the model; the states are shared out by hash (distributed/) and process 0 prints
// the report.
//
//   mpirun -np 4 druba-mpi test MODEL.pds|MODEL.drb --rounds R --delays D [--json]
//   mpirun -np 4 druba-mpi verify MODEL.pds|MODEL.drb [--top K] [--threads N|N..] [--json]
#include <cstdio>
#include <exception>

#include "cli/exit_codes.h"
#include "mpi/command_line.h"
#include "mpi_front/cpds.h"
#include "mpi_front/drb.h"

int main(int argc, char** argv) {
  druba::distributed::Session session(&argc, &argv);
  // A process that fails here has left its collectives: it ends every process of the run, which
  // has no verdict.
  try {
    druba::distributed::Comm comm;
    // The model kinds, told apart by the model file's extension.
    druba::mpi::DrbKind drb;
    druba::mpi::CpdsKind cpds;
    druba::mpi::Kind* const kinds[] = {&drb, &cpds};
    return druba::mpi::Main(argc, argv, comm, kinds);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "druba-mpi: internal error: %s\n", e.what());
    druba::distributed::Session::Abort(druba::exit_code::kInternal);
  }
}
