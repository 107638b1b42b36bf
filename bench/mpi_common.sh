# Sourced by the MPI bench scripts: finds scalewall-mpi in a build directory and builds the
# launcher command for it.
#   mpi_bin BUILD_DIR        sets $bin, or exits 2 naming the missing executable
#   mpi_launcher NP [FLAGS]  sets the array $launcher: mpirun with Open MPI's flags of DESIGN.md
#                            (root allowed, oversubscribed, shared memory only), FLAGS, -np NP
mpi_bin() {
  bin="$1/scalewall-mpi"
  if [ ! -x "$bin" ]; then
    echo "error: $bin not found; build it first: cmake --build $1 --target scalewall-mpi" >&2
    exit 2
  fi
}

mpi_launcher() {
  local np=$1
  shift
  launcher=(mpirun)
  if mpirun --version 2>/dev/null | grep -q "Open MPI"; then
    launcher+=(--allow-run-as-root --oversubscribe --mca btl self,vader)
  fi
  launcher+=("$@" -np "$np")
}
