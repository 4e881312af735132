// ditto.distributed, DistributedDataParallel and the samplers for Python: thin bindings of the C++
// ones (ditto/distributed.py, ditto/nn/parallel.py and ditto/utils/data.py give them PyTorch's
// signatures).
#include "ditto/distributed.h"

#include "common.h"
#include "ditto/data.h"
#include "ditto/nn/parallel.h"

namespace ditto::python {

void bind_distributed(py::module_& m) {
  namespace d = ditto::distributed;
  using Release = py::call_guard<py::gil_scoped_release>;
  py::module_ dm = m.def_submodule("_distributed", "ditto::distributed");
  dm.def("is_available", &d::is_available);
  dm.def("init", &d::init, Release());
  dm.def("is_initialized", &d::is_initialized);
  dm.def("finalize", &d::finalize, Release());
  dm.def("rank", &d::rank);
  dm.def("world_size", &d::world_size);
  dm.def("barrier", &d::barrier, Release());
  dm.def(
      "broadcast", [](Tensor& t, int root) { d::broadcast(t, root); }, py::arg("tensor"), py::arg("root"), Release());
  dm.def("all_gather", &d::all_gather, py::arg("tensor"), Release());
  dm.def("all_reduce", &d::all_reduce, py::arg("tensor"), Release());
  dm.def("notify_failure", &d::notify_failure, py::arg("what"));
  dm.def("traffic", [] {
    const d::Traffic t = d::traffic();
    return py::make_tuple(t.bytes_sent, t.messages);
  });
  dm.def(
      "leaf_range",
      [](int64_t n, int rank, int world) {
        const d::LeafRange r = d::leaf_range(n, rank, world);
        return py::make_tuple(r.begin, r.end);
      },
      py::arg("num_leaves"), py::arg("rank"), py::arg("world"));
  py::class_<d::LeafReducer>(dm, "LeafReducer")
      .def(py::init<int64_t, int64_t, ScalarType>(), py::arg("num_leaves"), py::arg("numel"), py::arg("dtype"))
      .def("add", &d::LeafReducer::add, py::arg("leaf"), py::arg("value"))
      .def("finish", &d::LeafReducer::finish, Release());

  using DDP = nn::DistributedDataParallel;
  py::class_<DDP>(dm, "DistributedDataParallel")
      .def(py::init<std::vector<Tensor>, std::vector<Tensor>, int64_t, std::vector<std::string>,
                    std::vector<std::string>>(),
           py::arg("parameters"), py::arg("buffers"), py::arg("num_leaves"), py::arg("parameter_names"),
           py::arg("buffer_names"))
      .def_property_readonly("num_leaves", &DDP::num_leaves)
      .def_property_readonly("local_leaves",
                             [](const DDP& ddp) {
                               const d::LeafRange r = ddp.local_leaves();
                               return py::make_tuple(r.begin, r.end);
                             })
      // With the GIL held: the leaf function is Python.
      .def(
          "forward_backward",
          [](DDP& ddp, const py::function& leaf_loss) {
            return ddp.forward_backward([&](int64_t leaf) { return leaf_loss(leaf).cast<Tensor>(); });
          },
          py::arg("leaf_loss"))
      .def("last_traffic", [](const DDP& ddp) {
        const DDP::StepTraffic t = ddp.last_traffic();
        return py::make_tuple(t.bytes_sent, t.ring_all_reduce_bytes);
      });

  py::class_<data::DistributedSampler>(dm, "DistributedSampler")
      .def(py::init<int64_t, int64_t, int64_t, bool, uint64_t, bool>(), py::arg("dataset_size"),
           py::arg("num_replicas"), py::arg("rank"), py::arg("shuffle"), py::arg("seed"), py::arg("drop_last"))
      .def("set_epoch", &data::DistributedSampler::set_epoch)
      .def("indices", &data::DistributedSampler::indices)
      .def_property_readonly("num_samples", &data::DistributedSampler::num_samples)
      .def_property_readonly("total_size", &data::DistributedSampler::total_size)
      .def_property_readonly("num_replicas", &data::DistributedSampler::num_replicas)
      .def_property_readonly("rank", &data::DistributedSampler::rank);
  py::class_<data::LeafSampler>(dm, "LeafSampler")
      .def(py::init<int64_t, int64_t, int64_t, bool, uint64_t>(), py::arg("dataset_size"), py::arg("batch_size"),
           py::arg("num_leaves"), py::arg("shuffle"), py::arg("seed"))
      .def("set_epoch", &data::LeafSampler::set_epoch)
      .def_property_readonly("epoch", &data::LeafSampler::epoch)
      .def_property_readonly("batches_per_epoch", &data::LeafSampler::batches_per_epoch)
      .def_property_readonly("num_leaves", &data::LeafSampler::num_leaves)
      .def("batch", &data::LeafSampler::batch)
      .def("leaf", &data::LeafSampler::leaf);
}

}  // namespace ditto::python
