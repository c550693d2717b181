import Collector
import CountOnlySink

extension CollectorServer: ListeningService {}

extension CountOnlyServer: ListeningService {}
