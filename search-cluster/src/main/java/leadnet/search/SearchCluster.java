package leadnet.search;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import org.opensearch.action.admin.cluster.health.ClusterHealthResponse;
import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.painless.PainlessPlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.transport.Netty4Plugin;

/**
 * A three-node OpenSearch cluster in this one JVM, on loopback: node i serves HTTP on port + i and
 * its transport on transport port + i. Runs in the foreground until SIGTERM or Ctrl-C, then closes
 * every node and removes the data directory it created.
 *
 * Environment: SEARCH_CLUSTER_PORT (HTTP of the first node, default 9200), SEARCH_CLUSTER_TRANSPORT_PORT
 * (default HTTP port + 100), SEARCH_CLUSTER_NODES (default 3), SEARCH_CLUSTER_DATA (a directory to keep
 * the data in across runs; by default a temporary one, removed on exit), SEARCH_CLUSTER_STOP_ON_EOF=1
 * (also stop when standard input closes: a parent that dies without signalling, e.g. a killed test
 * runner, takes the cluster with it).
 */
public final class SearchCluster {
  /** The modules the project's mappings and queries need, loaded from the classpath as plugins. */
  private static final List<Class<? extends Plugin>> MODULES = List.of(Netty4Plugin.class, CommonAnalysisPlugin.class, PainlessPlugin.class);

  /** Node's constructor taking classpath plugins is protected: this is how an embedded node gets modules. */
  private static final class EmbeddedNode extends Node {
    EmbeddedNode(Settings settings) {
      super(InternalSettingsPreparer.prepareEnvironment(settings, Collections.emptyMap(), null, () -> settings.get("node.name")), MODULES, true);
    }
  }

  private static final String APPLIER_LOGGER = "org.opensearch.cluster.service.ClusterApplierService";

  private final List<Node> nodes = Collections.synchronizedList(new ArrayList<>());
  private final Path home;
  private final boolean temporary;

  private SearchCluster(Path home, boolean temporary) {
    this.home = home;
    this.temporary = temporary;
  }

  public static void main(String[] args) throws Exception {
    int httpPort = intEnv("SEARCH_CLUSTER_PORT", 9200);
    int transportPort = intEnv("SEARCH_CLUSTER_TRANSPORT_PORT", httpPort + 100);
    int count = intEnv("SEARCH_CLUSTER_NODES", 3);
    String kept = System.getenv("SEARCH_CLUSTER_DATA");
    Path home = kept == null || kept.isEmpty() ? Files.createTempDirectory("leadnet-search-cluster-") : Files.createDirectories(Path.of(kept).toAbsolutePath());
    SearchCluster cluster = new SearchCluster(home, kept == null || kept.isEmpty());
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::stop, "search-cluster-stop"));
    if ("1".equals(System.getenv("SEARCH_CLUSTER_STOP_ON_EOF"))) {
      Thread watch = new Thread(() -> {
        try {
          while (System.in.read() != -1) {
            // only the end of input matters
          }
        } catch (IOException e) {
          // a broken pipe ends input too
        }
        System.exit(0);
      }, "search-cluster-stdin");
      watch.setDaemon(true);
      watch.start();
    }

    long started = System.nanoTime();
    // Every node but the first warns that a JVM-wide logging field (the node and cluster id in log
    // lines) is already set: harmless with several nodes in one JVM, so quiet until the cluster is up.
    Configurator.setLevel(APPLIER_LOGGER, Level.ERROR);
    try {
      List<String> names = IntStream.rangeClosed(1, count).mapToObj(i -> "node-" + i).collect(Collectors.toList());
      String seeds = IntStream.range(0, count).mapToObj(i -> "127.0.0.1:" + (transportPort + i)).collect(Collectors.joining(","));
      for (int i = 0; i < count; i++) {
        Node node = new EmbeddedNode(cluster.nodeSettings(names.get(i), httpPort + i, transportPort + i, seeds, names));
        cluster.nodes.add(node);
        node.start();
      }
      ClusterHealthResponse health = cluster.nodes.get(0).client().admin().cluster().prepareHealth()
          .setWaitForGreenStatus()
          .setWaitForNodes(Integer.toString(count))
          .setTimeout(TimeValue.timeValueMinutes(5))
          .get();
      if (health.isTimedOut()) throw new IllegalStateException("the cluster did not turn green: " + health.getStatus());
      Configurator.setLevel(APPLIER_LOGGER, Level.WARN);
    } catch (Throwable e) {
      System.err.println("search cluster failed to start: " + e);
      e.printStackTrace();
      System.exit(1);
    }
    // One write, so that a reader never sees half the line.
    System.out.print(String.format("search cluster green: %d nodes, HTTP on http://127.0.0.1:%d (nodes on ports %d-%d), data in %s, started in %.1f s%n",
        count, httpPort, httpPort, httpPort + count - 1, home, (System.nanoTime() - started) / 1e9));
    System.out.flush();
    new CountDownLatch(1).await();
  }

  private Settings nodeSettings(String name, int httpPort, int transportPort, String seeds, List<String> names) {
    Path dir = home.resolve(name);
    return Settings.builder()
        .put("cluster.name", "leadnet-search")
        .put("node.name", name)
        .put("path.home", dir.toString())
        .put("path.data", dir.resolve("data").toString())
        .put("path.logs", dir.resolve("logs").toString())
        .put("network.host", "127.0.0.1")
        .put("http.port", httpPort)
        .put("transport.port", transportPort)
        .put("discovery.seed_hosts", seeds)
        // Starting a node returns at once instead of waiting for a cluster the next nodes complete.
        .put("discovery.initial_state_timeout", "0s")
        .putList("cluster.initial_cluster_manager_nodes", names)
        // The nodes share one JVM and two cores: size thread pools for one, and let the breakers count
        // what each node accounts for rather than the whole shared heap.
        .put("node.processors", 1)
        .put("indices.breaker.total.use_real_memory", false)
        // A nearly full development disk must not keep replicas unassigned.
        .put("cluster.routing.allocation.disk.threshold_enabled", false)
        .build();
  }

  private void stop() {
    List<Node> open;
    synchronized (nodes) {
      open = new ArrayList<>(nodes);
      nodes.clear();
    }
    Collections.reverse(open);
    // Nodes closing one after another warn that the others are gone, and Netty that its event loops
    // are: expected here.
    Configurator.setRootLevel(Level.ERROR);
    Configurator.setLevel("io.netty", Level.OFF);
    for (Node node : open) {
      try {
        node.close();
        node.awaitClose(30, TimeUnit.SECONDS);
      } catch (IOException | InterruptedException | RuntimeException e) {
        System.err.println("closing " + node.settings().get("node.name") + ": " + e);
      }
    }
    if (temporary) {
      try (Stream<Path> paths = Files.walk(home)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> {
          try {
            Files.deleteIfExists(p);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
      } catch (IOException | UncheckedIOException e) {
        System.err.println("removing " + home + ": " + e);
      }
    }
    System.out.println("search cluster stopped");
    System.out.flush();
  }

  private static int intEnv(String name, int fallback) {
    String value = System.getenv(name);
    return value == null || value.isEmpty() ? fallback : Integer.parseInt(value);
  }
}
