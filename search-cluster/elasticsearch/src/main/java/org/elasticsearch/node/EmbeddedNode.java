package org.elasticsearch.node;

import java.util.Collection;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.plugins.MockPluginsService;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.plugins.PluginsService;

/**
 * An Elasticsearch node whose modules are classes on the classpath. Node's constructor that takes them
 * is package-private (the test framework's MockNode uses it), hence this class's package.
 */
public final class EmbeddedNode extends Node {
  public EmbeddedNode(Environment environment, Collection<Class<? extends Plugin>> modules) {
    super(NodeConstruction.prepareConstruction(environment, new NodeServiceProvider() {
      @Override
      PluginsService newPluginService(Environment env, Settings settings) {
        return new MockPluginsService(settings, env, modules);
      }
    }, true));
  }
}
