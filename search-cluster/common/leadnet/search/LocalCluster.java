package leadnet.search;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;

/**
 * A cluster of several nodes of one engine in this one JVM, on loopback: node i serves HTTP on port + i
 * and its transport on transport port + i. Runs in the foreground until SIGTERM or Ctrl-C, then closes
 * every node and removes the data directory it created. What differs between OpenSearch and
 * Elasticsearch (their classes, a few setting names) is the `Engine`'s; this class knows neither.
 *
 * Environment: SEARCH_CLUSTER_PORT (HTTP of the first node, default 9200), SEARCH_CLUSTER_TRANSPORT_PORT
 * (default HTTP port + 100), SEARCH_CLUSTER_NODES (default 3), SEARCH_CLUSTER_DATA (a directory to keep
 * the data in across runs; by default a temporary one, removed on exit), SEARCH_CLUSTER_STOP_ON_EOF=1
 * (also stop when standard input closes: a parent that dies without signalling, e.g. a killed test
 * runner, takes the cluster with it; standard input then also takes the commands `stop node-N` and
 * `start node-N`, each answered on stdout by one line, `node-N stopped`, `node-N started` or
 * `command failed: ...`: a test stops one node and brings it back).
 */
public final class LocalCluster {
  /** A started node. */
  public interface Node {
    /** Closes the node and waits (bounded) until it has. */
    void close() throws Exception;
  }

  /** One engine: how a node starts from its settings and how to wait for the whole cluster. */
  public interface Engine {
    /** Once, before the first node: the engine's logging, and its start-up noise quietened. */
    void beforeStart();

    /** Once the cluster is green: the start-up noise back to normal. */
    void afterStart();

    /**
     * Starts a node with the common `settings`, the engine's own, and `initialManagers` (every node's name)
     * as the nodes that may form the cluster first.
     */
    Node start(Map<String, String> settings, List<String> initialManagers) throws Exception;

    /** Returns when the cluster is green with `count` nodes, asking `first`; throws after five minutes. */
    void awaitGreen(Node first, int count) throws Exception;
  }

  /** The running node of each name (none while it is stopped), and the settings each starts with. */
  private final Map<String, Node> nodes = new LinkedHashMap<>();
  private final Map<String, Map<String, String>> settingsByName = new LinkedHashMap<>();
  private final List<String> names = new ArrayList<>();
  private final Engine engine;
  private final Path home;
  private final boolean temporary;
  private boolean stopped;

  private LocalCluster(Engine engine, Path home, boolean temporary) {
    this.engine = engine;
    this.home = home;
    this.temporary = temporary;
  }

  /** Starts the cluster of the environment's size, prints one line when it is green, and runs until stopped. */
  public static void run(Engine engine) throws Exception {
    int httpPort;
    int transportPort;
    int count;
    try {
      httpPort = intEnv("SEARCH_CLUSTER_PORT", 9200);
      transportPort = intEnv("SEARCH_CLUSTER_TRANSPORT_PORT", httpPort + 100);
      count = intEnv("SEARCH_CLUSTER_NODES", 3);
      requireFreePorts(httpPort, transportPort, count);
    } catch (IllegalArgumentException e) {
      // The operator's mistake, not the engine's: one line, no stack trace.
      System.err.println("search cluster failed to start: " + e.getMessage());
      System.exit(1);
      return;
    }
    String kept = System.getenv("SEARCH_CLUSTER_DATA");
    Path home = kept == null || kept.isEmpty() ? Files.createTempDirectory("leadnet-search-cluster-") : Files.createDirectories(Path.of(kept).toAbsolutePath());
    LocalCluster cluster = new LocalCluster(engine, home, kept == null || kept.isEmpty());
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::stop, "search-cluster-stop"));
    if ("1".equals(System.getenv("SEARCH_CLUSTER_STOP_ON_EOF"))) {
      Thread watch = new Thread(() -> {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
          for (String line; (line = in.readLine()) != null; ) {
            if (!line.isBlank()) reply(cluster.command(line.trim()));
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
    engine.beforeStart();
    try {
      String seeds = IntStream.range(0, count).mapToObj(i -> "127.0.0.1:" + (transportPort + i)).collect(Collectors.joining(","));
      for (int i = 0; i < count; i++) {
        String name = "node-" + (i + 1);
        cluster.names.add(name);
        cluster.settingsByName.put(name, cluster.nodeSettings(name, httpPort + i, transportPort + i, seeds));
      }
      for (String name : cluster.names) cluster.startNode(name);
      engine.awaitGreen(cluster.node(cluster.names.get(0)), count);
      engine.afterStart();
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

  private Map<String, String> nodeSettings(String name, int httpPort, int transportPort, String seeds) {
    Path dir = home.resolve(name);
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("cluster.name", "leadnet-search");
    settings.put("node.name", name);
    settings.put("path.home", dir.toString());
    settings.put("path.data", dir.resolve("data").toString());
    settings.put("path.logs", dir.resolve("logs").toString());
    settings.put("network.host", "127.0.0.1");
    settings.put("http.port", Integer.toString(httpPort));
    settings.put("transport.port", Integer.toString(transportPort));
    settings.put("discovery.seed_hosts", seeds);
    // Starting a node returns at once instead of waiting for a cluster the next nodes complete.
    settings.put("discovery.initial_state_timeout", "0s");
    // The nodes share one JVM and two cores: size thread pools for one, and let the breakers count
    // what each node accounts for rather than the whole shared heap.
    settings.put("node.processors", "1");
    settings.put("indices.breaker.total.use_real_memory", "false");
    // A nearly full development disk must not keep replicas unassigned.
    settings.put("cluster.routing.allocation.disk.threshold_enabled", "false");
    return settings;
  }

  private synchronized Node node(String name) {
    return nodes.get(name);
  }

  private synchronized void startNode(String name) throws Exception {
    if (stopped) throw new IllegalStateException("the cluster is stopping");
    nodes.put(name, engine.start(settingsByName.get(name), names));
  }

  /** Runs one command of standard input; returns the line that answers it. */
  private synchronized String command(String line) {
    String[] words = line.split("\\s+");
    if (words.length != 2 || !settingsByName.containsKey(words[1]) || !(words[0].equals("stop") || words[0].equals("start"))) {
      return "command failed: expected `stop node-N` or `start node-N` (N from 1 to " + names.size() + "), not `" + line + "`";
    }
    String name = words[1];
    try {
      if (words[0].equals("stop")) {
        Node node = nodes.remove(name);
        if (node == null) return "command failed: " + name + " is not running";
        node.close();
        return name + " stopped";
      }
      if (nodes.containsKey(name)) return "command failed: " + name + " is running";
      startNode(name);
      return name + " started";
    } catch (Exception e) {
      return "command failed: " + e;
    }
  }

  /** One write per line, so that a reader never sees half of one. */
  private static void reply(String line) {
    System.out.print(line + System.lineSeparator());
    System.out.flush();
  }

  private void stop() {
    List<Map.Entry<String, Node>> open;
    synchronized (this) {
      stopped = true;
      open = nodes.entrySet().stream().map(e -> Map.entry(e.getKey(), e.getValue())).collect(Collectors.toList());
      nodes.clear();
    }
    // Nodes closing one after another warn that the others are gone, and Netty that its event loops
    // are: expected here.
    Configurator.setRootLevel(Level.ERROR);
    Configurator.setLevel("io.netty", Level.OFF);
    for (int i = open.size() - 1; i >= 0; i--) {
      try {
        open.get(i).getValue().close();
      } catch (Exception e) {
        System.err.println("closing " + open.get(i).getKey() + ": " + e);
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
    if (value == null || value.isEmpty()) return fallback;
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, not " + value);
    }
  }

  /**
   * Fails at once, before any node starts, when a port the nodes need is taken (a cluster already
   * running there, say); the node would fail later with a page of stack trace.
   */
  private static void requireFreePorts(int httpPort, int transportPort, int count) {
    if (count < 1) throw new IllegalArgumentException("SEARCH_CLUSTER_NODES must be at least 1, not " + count);
    List<Integer> taken = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      for (int port : new int[] {httpPort + i, transportPort + i}) {
        if (port < 1 || port > 65535) throw new IllegalArgumentException("port " + port + " is out of range (SEARCH_CLUSTER_PORT, SEARCH_CLUSTER_TRANSPORT_PORT)");
        try (ServerSocket socket = new ServerSocket()) {
          socket.setReuseAddress(true);
          socket.bind(new InetSocketAddress("127.0.0.1", port));
        } catch (IOException e) {
          taken.add(port);
        }
      }
    }
    if (!taken.isEmpty()) {
      throw new IllegalArgumentException("127.0.0.1 port" + (taken.size() > 1 ? "s " : " ") + taken.stream().map(String::valueOf).collect(Collectors.joining(", "))
          + " already in use (another search cluster?); choose others with SEARCH_CLUSTER_PORT and SEARCH_CLUSTER_TRANSPORT_PORT");
    }
  }
}
