package leadnet.search;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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

/** A three-node Elasticsearch cluster in this one JVM (common/leadnet/search/LocalCluster.java runs it). */
public final class ElasticsearchCluster implements LocalCluster.Engine {
  /**
   * The modules the project's mappings and queries need, loaded from the classpath as plugins: HTTP and
   * transport (Netty), and the analysis components of `analysis-common` that the index settings name.
   */
  private static final List<Class<? extends Plugin>> MODULES = List.of(Netty4Plugin.class, CommonAnalysis.class);

  /** Quiet while the nodes join: the applier's warnings, and every node but the first saying that the JVM-wide node and cluster id of log lines is already set. */
  private static final String APPLIER_LOGGER = "org.elasticsearch.cluster.service.ClusterApplierService";
  private static final String NODE_ID_LOGGER = "org.elasticsearch.common.logging.NodeAndClusterIdStateListener";

  public static void main(String[] args) throws Exception {
    LocalCluster.run(new ElasticsearchCluster());
  }

  @Override
  public void beforeStart() {
    // What Elasticsearch's own start-up does before any node: its logging.
    LogConfigurator.loadLog4jPlugins();
    LogConfigurator.configureESLogging();
    LogConfigurator.configureWithoutConfig(Settings.EMPTY);
    Configurator.setLevel(APPLIER_LOGGER, Level.ERROR);
    Configurator.setLevel(NODE_ID_LOGGER, Level.OFF);
  }

  @Override
  public void afterStart() {
    Configurator.setLevel(APPLIER_LOGGER, Level.WARN);
  }

  @Override
  public LocalCluster.Node start(Map<String, String> settings, List<String> initialManagers) throws Exception {
    Settings nodeSettings = Settings.builder()
        .loadFromMap(settings)
        .putList("cluster.initial_master_nodes", initialManagers)
        // The test suites remove their indexes by pattern (`leadnet_suite_...*`); leadnet itself deletes by name.
        .put("action.destructive_requires_name", false)
        .build();
    Node node = new EmbeddedNode(InternalSettingsPreparer.prepareEnvironment(nodeSettings, Collections.emptyMap(), null, () -> nodeSettings.get("node.name")), MODULES);
    node.start();
    return new Started(node);
  }

  @Override
  public void awaitGreen(LocalCluster.Node first, int count) {
    ClusterHealthResponse health = ((Started) first).node.client().admin().cluster().prepareHealth(TimeValue.timeValueMinutes(5))
        .setWaitForGreenStatus()
        .setWaitForNodes(Integer.toString(count))
        .setTimeout(TimeValue.timeValueMinutes(5))
        .get();
    if (health.isTimedOut()) throw new IllegalStateException("the cluster did not turn green: " + health.getStatus());
  }

  private record Started(Node node) implements LocalCluster.Node {
    @Override
    public void close() throws Exception {
      node.close();
      node.awaitClose(30, TimeUnit.SECONDS);
    }
  }
}
