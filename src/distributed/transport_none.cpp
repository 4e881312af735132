// A ditto built without MPI (no libopenmpi-dev when it was configured): the world is one process,
// and a launch by mpirun with more processes is refused rather than run as independent copies.
#include "distributed/transport.h"
#include "ditto/error.h"

namespace ditto::distributed::detail {

std::unique_ptr<Transport> make_mpi_transport() {
  ditto::detail::fail("distributed.init",
                      "started by mpirun with several processes, but this ditto was built without MPI (install "
                      "libopenmpi-dev and reconfigure)");
}
bool mpi_built() { return false; }

}  // namespace ditto::distributed::detail
