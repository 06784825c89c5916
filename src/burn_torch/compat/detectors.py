"""The porting checker's detectors, under their historical path (defined in
``burn_torch_check.detectors``)."""
from burn_torch_check.detectors import DETECTORS, Detector, Fix, Hit, detector, run_detectors

__all__ = ["DETECTORS", "Detector", "Fix", "Hit", "detector", "run_detectors"]
