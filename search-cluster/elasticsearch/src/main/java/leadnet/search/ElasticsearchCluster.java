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
import org.elasticsearch.action.admin.cluster.health.ClusterHealthResponse;
import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.node.EmbeddedNode;
import org.elasticsearch.node.InternalSettingsPreparer;
import org.elasticsearch.node.Node;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.transport.netty4.Netty4Plugin;

/**
 * A three-node Elasticsearch cluster in this one JVM (the twin of search-cluster/'s OpenSearch launcher),
 * on loopback: node i serves HTTP on port + i and its transport on transport port + i. Runs in the foreground until SIGTERM or Ctrl-C, then closes
 * every node and removes the data directory it created.
 *
 * Environment: SEARCH_CLUSTER_PORT (HTTP of the first node, default 9200), SEARCH_CLUSTER_TRANSPORT_PORT
 * (default HTTP port + 100), SEARCH_CLUSTER_NODES (default 3), SEARCH_CLUSTER_DATA (a directory to keep
 * the data in across runs; by default a temporary one, removed on exit), SEARCH_CLUSTER_STOP_ON_EOF=1
 * (also stop when standard input closes: a parent that dies without signalling, e.g. a killed test
 * runner, takes the cluster with it).
 */
public final class ElasticsearchCluster {
  /**
   * The modules the project's mappings and queries need, loaded from the classpath as plugins: HTTP and
   * transport (Netty), and the analysis components of `analysis-common` that the index settings name.
   */
  private static final List<Class<? extends Plugin>> MODULES = List.of(Netty4Plugin.class, CommonAnalysis.class);

  private static final String APPLIER_LOGGER = "org.elasticsearch.cluster.service.ClusterApplierService";
  /** Logs, for every node but the first, that the JVM-wide node and cluster id of log lines is already set. */
  private static final String NODE_ID_LOGGER = "org.elasticsearch.common.logging.NodeAndClusterIdStateListener";

  private final List<Node> nodes = Collections.synchronizedList(new ArrayList<>());
  private final Path home;
  private final boolean temporary;

  private ElasticsearchCluster(Path home, boolean temporary) {
    this.home = home;
    this.temporary = temporary;
  }

  public static void main(String[] args) throws Exception {
    int httpPort = intEnv("SEARCH_CLUSTER_PORT", 9200);
    int transportPort = intEnv("SEARCH_CLUSTER_TRANSPORT_PORT", httpPort + 100);
    int count = intEnv("SEARCH_CLUSTER_NODES", 3);
    String kept = System.getenv("SEARCH_CLUSTER_DATA");
    Path home = kept == null || kept.isEmpty() ? Files.createTempDirectory("leadnet-search-cluster-") : Files.createDirectories(Path.of(kept).toAbsolutePath());
    ElasticsearchCluster cluster = new ElasticsearchCluster(home, kept == null || kept.isEmpty());
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
    // What Elasticsearch's own start-up does before any node: its logging, then the nodes' settings.
    LogConfigurator.loadLog4jPlugins();
    LogConfigurator.configureESLogging();
    LogConfigurator.configureWithoutConfig(Settings.EMPTY);
    // Every node but the first warns that a JVM-wide logging field (the node and cluster id in log
    // lines) is already set: harmless with several nodes in one JVM, so quiet until the cluster is up.
    Configurator.setLevel(APPLIER_LOGGER, Level.ERROR);
    Configurator.setLevel(NODE_ID_LOGGER, Level.OFF);
    try {
      List<String> names = IntStream.rangeClosed(1, count).mapToObj(i -> "node-" + i).collect(Collectors.toList());
      String seeds = IntStream.range(0, count).mapToObj(i -> "127.0.0.1:" + (transportPort + i)).collect(Collectors.joining(","));
      for (int i = 0; i < count; i++) {
        Settings settings = cluster.nodeSettings(names.get(i), httpPort + i, transportPort + i, seeds, names);
        Node node = new EmbeddedNode(InternalSettingsPreparer.prepareEnvironment(settings, Collections.emptyMap(), null, () -> settings.get("node.name")), MODULES);
        cluster.nodes.add(node);
        node.start();
      }
      ClusterHealthResponse health = cluster.nodes.get(0).client().admin().cluster().prepareHealth(TimeValue.timeValueMinutes(5))
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
        // The test suites remove their indexes by pattern (`leadnet_suite_...*`); leadnet itself deletes by name.
        .put("action.destructive_requires_name", false)
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
        .putList("cluster.initial_master_nodes", names)
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
