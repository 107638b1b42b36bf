// scalewall-mpi: the measurement harness, launched as `mpirun -np N scalewall-mpi <mode>`.
// Every rank parses the same command line; rank 0 alone prints help, errors and progress and
// writes the JSON Lines. Exit status (docs/errors.md): 0 complete; 2 bad input ("error: ..."
// naming the value, on every rank, so that all of them leave together); 1 a failed
// measurement or an unwritable output. A failure on one rank alone ends the job with
// MPI_Abort, so that no rank is left waiting for it.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "mpi/modes.h"
#include "mpi/world.h"
#include "scalewall/base/error.h"
#include "scalewall/base/utf8.h"

namespace {

// "error: <what>" on one line of stderr, with the control characters an input name may carry
// (ESC, a line break) written visibly, as scalewall writes its errors.
void print_error(std::string_view what) {
  std::cerr << "error: " << scalewall::visible(what) << "\n";
}

int parse_and_run(int argc, char** argv, int rank) {
  const bool root = rank == 0;
  CLI::App app{
      "scalewall-mpi: measures the fabric it runs on (one-way times, collectives raced "
      "against hand-written algorithms, arrival spread, a synthetic training step) and writes "
      "JSON Lines that scalewall calibrate, validate and diagnose read.\n"
      "Launch it as: mpirun -np N scalewall-mpi <mode> [flags]",
      "scalewall-mpi"};
  app.set_version_flag("--version", std::string(SCALEWALL_VERSION), "Print the version and exit");
  app.require_subcommand(1);
  app.footer(
      "Run 'scalewall-mpi <mode> --help' for a mode's flags. docs/mpi.md describes each mode's\n"
      "method. Sizes: 4096, 64KiB, 1MB. Times: 2.5us, 10ms.");
  std::vector<scalewall::mpi::Mode> modes = {
      scalewall::mpi::register_pingpong(app), scalewall::mpi::register_exchange(app),
      scalewall::mpi::register_collective(app),
      scalewall::mpi::register_arrival(app), scalewall::mpi::register_step(app),
      scalewall::mpi::register_reduce(app), scalewall::mpi::register_suite(app)};

  if (argc > 1 && argv[1][0] != '-') {
    const std::string first = argv[1];
    std::string known;
    bool found = false;
    for (const auto& mode : modes) {
      found = found || mode.command->get_name() == first;
      known += (known.empty() ? "" : ", ") + mode.command->get_name();
    }
    if (!found) {
      if (root) {
        print_error("unknown mode '" + first + "' (expected one of: " + known + ")");
      }
      return 2;
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return root ? app.exit(e) : 0;
  } catch (const CLI::CallForAllHelp& e) {
    return root ? app.exit(e) : 0;
  } catch (const CLI::CallForVersion& e) {
    return root ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    if (root) {
      print_error(e.what());
      std::cerr << "Run 'scalewall-mpi --help' or 'scalewall-mpi <mode> --help' for usage.\n";
    }
    return 2;
  }

  scalewall::mpi::World world = scalewall::mpi::make_world();
  int status = 0;
  try {
    for (const auto& mode : modes) {
      if (mode.command->parsed()) status = mode.run(world);
    }
  } catch (const scalewall::InputError& e) {
    if (root) print_error(e.what());
    status = 2;
  } catch (const scalewall::mpi::RunError& e) {
    if (root) print_error(e.what());
    status = 1;
  } catch (const std::exception& e) {
    print_error("rank " + std::to_string(rank) + ": " + e.what());
    std::cerr.flush();
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  std::fflush(stdout);
  scalewall::mpi::free_world(world);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int status = parse_and_run(argc, argv, rank);
  MPI_Finalize();
  return status;
}
