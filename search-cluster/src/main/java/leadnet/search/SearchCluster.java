package leadnet.search;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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

/** A three-node OpenSearch cluster in this one JVM (common/leadnet/search/LocalCluster.java runs it). */
public final class SearchCluster implements LocalCluster.Engine {
  /** The modules the project's mappings and queries need, loaded from the classpath as plugins. */
  private static final List<Class<? extends Plugin>> MODULES = List.of(Netty4Plugin.class, CommonAnalysisPlugin.class, PainlessPlugin.class);

  /** Node's constructor taking classpath plugins is protected: this is how an embedded node gets modules. */
  private static final class EmbeddedNode extends Node {
    EmbeddedNode(Settings settings) {
      super(InternalSettingsPreparer.prepareEnvironment(settings, Collections.emptyMap(), null, () -> settings.get("node.name")), MODULES, true);
    }
  }

  /**
   * Every node but the first warns that a JVM-wide logging field (the node and cluster id in log lines) is
   * already set: harmless with several nodes in one JVM, so quiet until the cluster is up.
   */
  private static final String APPLIER_LOGGER = "org.opensearch.cluster.service.ClusterApplierService";

  public static void main(String[] args) throws Exception {
    LocalCluster.run(new SearchCluster());
  }

  @Override
  public void beforeStart() {
    Configurator.setLevel(APPLIER_LOGGER, Level.ERROR);
  }

  @Override
  public void afterStart() {
    Configurator.setLevel(APPLIER_LOGGER, Level.WARN);
  }

  @Override
  public LocalCluster.Node start(Map<String, String> settings, List<String> initialManagers) throws Exception {
    Node node = new EmbeddedNode(Settings.builder().loadFromMap(settings).putList("cluster.initial_cluster_manager_nodes", initialManagers).build());
    node.start();
    return new Started(node);
  }

  @Override
  public void awaitGreen(LocalCluster.Node first, int count) {
    ClusterHealthResponse health = ((Started) first).node.client().admin().cluster().prepareHealth()
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
