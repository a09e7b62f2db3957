package leadnet.search;

import java.util.Map;
import java.util.regex.Pattern;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.analysis.ngram.EdgeNGramTokenFilter;
import org.apache.lucene.analysis.pattern.PatternTokenizer;
import org.elasticsearch.common.regex.Regex;
import org.elasticsearch.index.analysis.AbstractTokenFilterFactory;
import org.elasticsearch.index.analysis.AbstractTokenizerFactory;
import org.elasticsearch.index.analysis.TokenFilterFactory;
import org.elasticsearch.index.analysis.TokenizerFactory;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.plugins.AnalysisPlugin;
import org.elasticsearch.plugins.Plugin;

/**
 * The analysis components of Elasticsearch's `analysis-common` module that leadnet's index settings name
 * (src/search/elasticsearch/mapping.ts): the `pattern` tokenizer and the `lowercase`, `asciifolding` and
 * `edge_ngram` token filters. Elastic does not publish that module to Maven Central (its server and
 * `transport-netty4` are), so this plugin registers them under the same names, over the same Lucene
 * classes and with the same settings as the module does (`PatternTokenizerFactory`,
 * `LowerCaseTokenFilterFactory` without a language, `ASCIIFoldingTokenFilterFactory`,
 * `EdgeNGramTokenFilterFactory` for the front side).
 */
public final class CommonAnalysis extends Plugin implements AnalysisPlugin {
  @Override
  public Map<String, AnalysisProvider<TokenizerFactory>> getTokenizers() {
    return Map.of("pattern", (indexSettings, env, name, settings) -> {
      Pattern pattern = Regex.compile(settings.get("pattern", "\\W+"), settings.get("flags"));
      int group = settings.getAsInt("group", -1);
      return new AbstractTokenizerFactory(indexSettings, settings, name) {
        @Override
        public Tokenizer create() {
          return new PatternTokenizer(pattern, group);
        }
      };
    });
  }

  @Override
  public Map<String, AnalysisProvider<TokenFilterFactory>> getTokenFilters() {
    return Map.of(
        "lowercase", (indexSettings, env, name, settings) -> new AbstractTokenFilterFactory(name, settings) {
          @Override
          public TokenStream create(TokenStream tokens) {
            return new LowerCaseFilter(tokens);
          }
        },
        "asciifolding", (indexSettings, env, name, settings) -> {
          boolean preserveOriginal = settings.getAsBoolean("preserve_original", false);
          return new AbstractTokenFilterFactory(name, settings) {
            @Override
            public TokenStream create(TokenStream tokens) {
              return new ASCIIFoldingFilter(tokens, preserveOriginal);
            }
          };
        },
        "edge_ngram", (indexSettings, env, name, settings) -> {
          int min = settings.getAsInt("min_gram", 1);
          int max = settings.getAsInt("max_gram", 2);
          boolean preserveOriginal = settings.getAsBoolean("preserve_original", false);
          return new AbstractTokenFilterFactory(name, settings) {
            @Override
            public TokenStream create(TokenStream tokens) {
              return new EdgeNGramTokenFilter(tokens, min, max, preserveOriginal);
            }
          };
        });
  }
}
