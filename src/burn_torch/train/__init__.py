"""Burn's training stack (``burn::train``): [`Learner`][burn_torch.train.learner.Learner] and
[`SupervisedTraining`][burn_torch.train.learner.SupervisedTraining], the step protocols and outputs,
metrics, metric logs, checkpoints and resume, early stopping, the live dashboard and the metrics
plot. See ``.learner`` for the loop and what a resume guarantees, ``.logger`` and ``.checkpoint``
for the artifact directory's files."""
from .checkpoint import FileCheckpointer, LearningCheckpointer, latest_checkpoint
from .learner import Interrupter, Learner, LearningResult, SupervisedTraining, summarize
from .logger import read_metric_log
from .metric import (AccuracyMetric, CpuMemory, CpuUse, LearningRateMetric, LossMetric, Metric,
                     MetricEntry, MetricMetadata, Numeric, NumericMetricState, TopKAccuracyMetric)
from .output import (AccuracyInput, ClassificationOutput, InferenceStep, LossInput,
                     RegressionOutput, TopKAccuracyInput, TrainOutput, TrainStep, adapt,
                     register_adaptor)
from .plot import plot_metrics, wait_for_plots
from .renderer import (MetricsRenderer, NotebookRenderer, PlainRenderer, RichDashboard,
                       TrainingProgress, default_renderer, sparkline)
from .strategy import (Aggregate, CheckpointingStrategy, ComposedCheckpointingStrategy, Direction,
                       EarlyStoppingStrategy, KeepLastNCheckpoints, MetricCheckpointingStrategy,
                       MetricEarlyStoppingStrategy, Split, StoppingCondition)

__all__ = [
    "Learner", "SupervisedTraining", "LearningResult", "Interrupter", "summarize",
    "TrainStep", "InferenceStep", "TrainOutput", "ClassificationOutput", "RegressionOutput",
    "LossInput", "AccuracyInput", "TopKAccuracyInput", "adapt", "register_adaptor",
    "Metric", "Numeric", "MetricEntry", "MetricMetadata", "NumericMetricState", "LossMetric",
    "AccuracyMetric", "TopKAccuracyMetric", "LearningRateMetric", "CpuUse", "CpuMemory",
    "FileCheckpointer", "LearningCheckpointer", "latest_checkpoint", "read_metric_log",
    "CheckpointingStrategy", "KeepLastNCheckpoints", "MetricCheckpointingStrategy",
    "ComposedCheckpointingStrategy", "EarlyStoppingStrategy", "MetricEarlyStoppingStrategy",
    "StoppingCondition", "Aggregate", "Direction", "Split",
    "MetricsRenderer", "PlainRenderer", "RichDashboard", "NotebookRenderer", "default_renderer",
    "TrainingProgress", "sparkline", "plot_metrics", "wait_for_plots",
]
